import { Form } from "@remix-run/react";
import { CheckboxField, SaveActions, TextField, UrlField } from "../../components/form-fields";
import { Card } from "../../components/ui";
import { keptForText } from "../../lib/format";
import type { EndpointPageData } from "./endpoint-data.server";

type UpdateResult = { ok: true; savedAt: number } | { ok: false; error: string } | undefined;

/** Name, destination, staging host, signing, proxy headers and retention. */
export function SettingsCard({ endpoint, saving, result }: { endpoint: EndpointPageData["endpoint"]; saving: boolean; result: UpdateResult }) {
  const savedAt = result?.ok ? result.savedAt : 0;
  // A new key after a save shows the stored (normalised) values; an error keeps what was typed.
  const formKey = [endpoint.name, endpoint.destinationUrl, endpoint.stagingHost, endpoint.signRequests, endpoint.keepProxyHeaders, savedAt].join("\u0000");
  return (
    <Card title="Settings" description="Changes apply to events captured from now on; stored events keep the destination they were captured for.">
      <Form method="post" className="form-stack" key={formKey} noValidate>
        <input type="hidden" name="intent" value="update" />
        <TextField id="settings-name" label="Name" name="name" required maxLength={100} autoComplete="off" defaultValue={endpoint.name} />
        <UrlField
          id="settings-destination"
          label="Destination URL"
          hint={
            endpoint.destinationCount > 1 ? (
              <span data-testid="first-destination-note">
                This is the first of the endpoint’s {endpoint.destinationCount} destinations; the others are edited under <a href="#destinations">Destinations</a>. Blank
                removes it.
              </span>
            ) : (
              "Leave blank to capture only."
            )
          }
          name="destinationUrl"
          placeholder="https://api.example.com/webhooks"
          defaultValue={endpoint.destinationUrl ?? ""}
        />
        <TextField
          id="settings-staging"
          label="Staging hostname"
          hint="Used by staging replays, e.g. staging.example.com (host only, no https://)."
          name="stagingHost"
          spellCheck={false}
          autoComplete="off"
          placeholder="staging.example.com"
          defaultValue={endpoint.stagingHost ?? ""}
        />
        <CheckboxField
          id="settings-sign"
          label="Sign forwarded requests"
          hint={
            <>
              Adds Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) signed with the endpoint secret. A valid signature proves
              that Rehook forwarded this exact request, not who originally sent it.
            </>
          }
          name="signRequests"
          defaultChecked={endpoint.signRequests}
        />
        <CheckboxField
          id="settings-proxy-headers"
          label="Keep proxy headers"
          hint="Forward and replay the sender's X-Forwarded-*, Forwarded and X-Real-IP headers. Off by default: anyone can write them."
          name="keepProxyHeaders"
          defaultChecked={endpoint.keepProxyHeaders}
        />
        <TextField
          id="settings-retention"
          label="Keep events for (days)"
          hint={`${keptForText(endpoint.keptForDays)}. Blank: the server's default; 0: for ever. Older events are deleted in the background.`}
          name="retentionDays"
          inputMode="numeric"
          autoComplete="off"
          placeholder="server default"
          defaultValue={endpoint.retentionDays === null ? "" : String(endpoint.retentionDays)}
        />
        <SaveActions label="Save changes" saving={saving} saved={result?.ok ? "Saved" : null} error={result && !result.ok ? result.error : null} />
      </Form>
    </Card>
  );
}
