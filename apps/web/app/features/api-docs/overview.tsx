import { Link } from "@remix-run/react";
import type { ReactNode } from "react";
import { Card, CopyField } from "../../components/ui";

/** The base URL, authentication, errors and paging: what every operation shares. */
export function Overview({ baseUrl, version }: { baseUrl: string; version: string }) {
  return (
    <Card title="Basics" className="api-overview">
      <dl className="api-basics">
        <Basic term="Base URL">
          <CopyField value={baseUrl} testId="api-base-url" />
        </Basic>
        <Basic term="Authentication">
          <p>
            Send an API key with every request: <code className="inline-code">Authorization: Bearer pk_live_…</code>. Make one in{" "}
            <Link to="/settings#api-keys">Settings → API keys</Link> (or with <code className="inline-code">rehook apikey create</code>). A missing, unknown or
            revoked key gets a 401.
          </p>
        </Basic>
        <Basic term="Errors">
          <p>
            Every error has the same JSON shape, with a stable machine-readable <code className="inline-code">code</code>; <code className="inline-code">details</code>{" "}
            only comes with validation errors (the issues found):
          </p>
          <pre className="code-block api-error-shape">{'{"error": {"code", "message", "details"?}}'}</pre>
        </Basic>
        <Basic term="Version">
          <p>
            Every answer carries the <code className="inline-code">Rehook-Api-Version{version ? `: ${version}` : ""}</code> header. The API is a preview: fields
            may still be added.
          </p>
        </Basic>
        <Basic term="Rate limit">
          <p>
            Requests are counted per key, per minute. Over the limit the answer is <strong>429</strong> with a{" "}
            <code className="inline-code">Retry-After</code> header: wait that many seconds, then try again.
          </p>
        </Basic>
      </dl>
    </Card>
  );
}

function Basic({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="api-basic">
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}
