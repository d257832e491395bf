import { Form, Link, useNavigation } from "@remix-run/react";
import { SubmitButton } from "./form-fields";
import { FormError, StandalonePage } from "./ui";

/** Switching between the two forms keeps where to go afterwards (checked when the form is posted). */
function withNext(path: string, next: string | undefined): string {
  return next ? `${path}?next=${encodeURIComponent(next)}` : path;
}

/** The sign-up and log-in form: same fields, different wording. */
export function CredentialsForm(props: {
  mode: "login" | "signup";
  error?: string;
  email?: string;
  next?: string;
  invite?: string;
  /** Log in only: why there is no sign-up link (SIGNUP is closed or by invitation), said instead of offering one. */
  noSignup?: string;
  /** Single sign-on's button (OIDC_NAME), when it is set up. */
  sso?: { name: string } | null;
  /** PASSWORD_LOGIN=false: no password form, the sign-on button only. */
  passwordLogin?: boolean;
  /** Where "Sign in with …" comes back to (default: next). */
  ssoNext?: string;
}) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const login = props.mode === "login";
  const passwords = props.passwordLogin !== false;
  return (
    <StandalonePage auth title={login ? "Log in" : "Create your account"}>
      <p className="muted auth-tagline">{login ? "Welcome back. Log in to see your endpoints and events." : "Capture, inspect, forward and replay webhooks on your own server."}</p>
      {props.sso ? (
        // A link, not a form: the redirect to the provider that follows a form post is held to
        // our `form-action 'self'` (Chromium blocks it); a link's navigation is not (docs/sso.md).
        <div className="stack sso-form">
          <a href={withNext("/auth/oidc", props.ssoNext ?? props.next)} className="button primary block" data-testid="sso-button">
            {`Sign in with ${props.sso.name}`}
          </a>
        </div>
      ) : null}
      {props.sso && passwords ? <p className="muted small auth-or">or with your email and password</p> : null}
      {!passwords ? <FormError message={props.error} /> : null}
      {passwords ? <PasswordForm {...props} busy={busy} login={login} /> : null}
      {passwords ? <SwitchLink {...props} login={login} /> : null}
    </StandalonePage>
  );
}

function PasswordForm(props: { busy: boolean; login: boolean; error?: string; email?: string; next?: string; invite?: string }) {
  const { busy, login } = props;
  return (
    <Form method="post" className="stack">
      {props.next ? <input type="hidden" name="next" value={props.next} /> : null}
      {props.invite ? <input type="hidden" name="invite" value={props.invite} /> : null}
      <label className="field">
        <span>Email</span>
        <input name="email" type="email" autoComplete="email" required defaultValue={props.email} autoFocus />
      </label>
      <label className="field">
        <span>Password</span>
        <input name="password" type="password" autoComplete={login ? "current-password" : "new-password"} required minLength={login ? 1 : 8} />
        {login ? null : <small className="muted">At least 8 characters.</small>}
      </label>
      <FormError message={props.error} />
      <SubmitButton busy={busy} busyLabel="One moment…" className="button primary block">
        {login ? "Log in" : "Create account"}
      </SubmitButton>
    </Form>
  );
}

function SwitchLink(props: { login: boolean; next?: string; noSignup?: string }) {
  const { login } = props;
  return (
    <p className="muted small">
      {login && props.noSignup ? (
        <span data-testid="no-signup">{props.noSignup}</span>
      ) : login ? (
        <>
          No account yet? <Link to={withNext("/signup", props.next)}>Create one</Link>
        </>
      ) : (
        <>
          Already have an account? <Link to={withNext("/login", props.next)}>Log in</Link>
        </>
      )}
    </p>
  );
}
