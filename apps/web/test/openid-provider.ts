import { generateKeyPairSync } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration } from "oidc-provider";

/** Who signs in at the provider next: its subject and the claims its ID token carries. */
export interface TestAccount {
  sub: string;
  email?: string;
  email_verified?: boolean | string;
  /** Microsoft Entra's "email domain owner verified" claim. */
  xms_edov?: boolean;
}

export interface TestOpenIdProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Registers where the provider may send browsers back (Rehook's callback on its origin). */
  allowRedirect(uri: string): void;
  /** The account the next login at the provider signs in as. */
  signInAs(account: TestAccount): void;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (the oidc-provider package) on a free loopback port. Its login step
 * is answered at once for the account given to `signInAs` (no form), and consent is granted
 * for the openid, email and profile scopes; PKCE is required of every client.
 */
export async function startOpenIdProvider(): Promise<TestOpenIdProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = "rehook-test";
  const clientSecret = "a-client-secret-that-is-long-enough-for-hs256-0123456789";
  const redirectUris: string[] = [];
  let account: TestAccount = { sub: "nobody" };
  const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });

  let provider: Provider | undefined;
  const configure = () => {
    const configuration: Configuration = {
      clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [...redirectUris], grant_types: ["authorization_code"], response_types: ["code"] }],
      jwks: { keys: [{ ...signingKey, kid: "test-key", use: "sig", alg: "RS256" }] },
      cookies: { keys: ["test-cookie-key-0123456789"] },
      claims: { openid: ["sub"], email: ["email", "email_verified", "xms_edov"] },
      pkce: { required: () => true },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      findAccount: (_ctx, id) => ({
        accountId: id,
        claims: () => ({ ...account, sub: id }),
      }),
      // First-party: consent is given for what Rehook asks.
      loadExistingGrant: async (ctx) => {
        const accountId = ctx.oidc.session?.accountId;
        if (!accountId || !ctx.oidc.client) return undefined;
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId });
        grant.addOIDCScope("openid email profile");
        await grant.save();
        return grant;
      },
    };
    provider = new Provider(issuer, configuration);
  };
  configure();

  server.on("request", (req, res) => {
    void (async () => {
      const current = provider!;
      if (req.url?.startsWith("/interaction/")) {
        await current.interactionDetails(req, res);
        await current.interactionFinished(req, res, { login: { accountId: account.sub } }, { mergeWithLastSubmission: false });
        return;
      }
      current.callback()(req, res);
    })().catch(() => {
      res.statusCode = 500;
      res.end("provider error");
    });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    allowRedirect(uri) {
      redirectUris.push(uri);
      configure(); // clients are read at construction
    },
    signInAs(next) {
      account = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
