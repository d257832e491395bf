import { useEffect, useState } from "react";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { CopyButton } from "../../components/copy-button";
import { IntentButton } from "../../components/form-fields";
import { useAccess } from "../../components/use-team";
import { EmptyState, FormError, Icon } from "../../components/ui";
import { errorMessage } from "../../lib/errors";
import { trpc } from "../../lib/trpc.client";
import type { ActionReply } from "./action-reply";
import { Section, usePendingIntent } from "./section";

/** Each endpoint's signing secret: reveal, copy, regenerate (a developer's; others see why not on hover). */
export function SecuritySection({ endpoints, result }: { endpoints: Array<{ id: string; name: string }>; result: ActionReply | undefined }) {
  const { reason: locked } = useAccess("developer");
  return (
    <Section
      id="security"
      icon="shield"
      title="Security"
      description={
        <>
          Each endpoint has a signing secret. When “Sign forwarded requests” is on, Rehook signs what it forwards with it (Standard Webhooks), so your app can check
          that a request really came from Rehook.
        </>
      }
    >
      {endpoints.length === 0 ? (
        <EmptyState title="Nothing to sign yet">
          <p>Signing secrets appear here once you create an endpoint.</p>
        </EmptyState>
      ) : (
        <ul className="secret-list">
          {endpoints.map((endpoint) => (
            <SecretRow key={endpoint.id} endpoint={endpoint} locked={locked} result={result?.intent === "rotateSecret" && result.id === endpoint.id ? result : null} />
          ))}
        </ul>
      )}
    </Section>
  );
}

function SecretRow({ endpoint, locked, result }: { endpoint: { id: string; name: string }; locked: string | undefined; result: ActionReply | null }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [revealing, setRevealing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const pending = usePendingIntent();
  const rotating = pending.intent === "rotateSecret" && pending.id === endpoint.id;
  const rotated = result?.ok && result.secret ? result.secret : null;

  useEffect(() => {
    if (rotated) {
      setSecret(rotated);
      setConfirming(false);
    }
  }, [rotated]);
  useEffect(() => {
    if (result && !result.ok) setConfirming(false);
  }, [result]);

  async function reveal() {
    setRevealing(true);
    setError(null);
    try {
      const answer = await trpc().endpoints.secret.query({ id: endpoint.id });
      setSecret(answer.secret);
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setRevealing(false);
    }
  }

  return (
    <li className="secret-row" data-testid="secret-row">
      <div className="secret-main">
        <p className="secret-name">{endpoint.name}</p>
        <div className="secret-value-row">
          {secret ? (
            <code className="copy-field-value secret-value" data-testid="secret-value">
              {secret}
            </code>
          ) : (
            <code className="copy-field-value secret-masked">
              whsec_••••••••••••
            </code>
          )}
          <div className="secret-actions">
            {secret ? (
              <>
                <CopyButton text={secret} />
                <button type="button" className="button ghost small" onClick={() => setSecret(null)}>
                  Hide
                </button>
              </>
            ) : (
              <button type="button" className="button secondary small" onClick={reveal} disabled={revealing || locked !== undefined} title={locked}>
                {revealing ? "Revealing…" : "Reveal"}
              </button>
            )}
            <button type="button" className="button ghost small" onClick={() => setConfirming(true)} disabled={locked !== undefined} title={locked}>
              <Icon name="refresh" />
              Regenerate
            </button>
          </div>
        </div>
        {rotated && secret === rotated ? (
          <p className="hint success-text" data-testid="secret-rotated">
            New secret generated. Update your app’s verification with it.
          </p>
        ) : null}
        <FormError message={error ?? (result && !result.ok ? `Could not regenerate the secret: ${result.error}` : null)} />
      </div>

      <ConfirmDialog
        open={confirming}
        onClose={() => setConfirming(false)}
        title={`Regenerate the secret for “${endpoint.name}”?`}
        description={
          <p>
            A new signing secret is created and the old secret stops working immediately: signatures made with it no longer verify. Update every app that
            checks signatures from this endpoint.
          </p>
        }
      >
        <IntentButton intent="rotateSecret" id={endpoint.id} preventScrollReset className="button danger" busy={rotating} busyLabel="Regenerating…">
          Regenerate secret
        </IntentButton>
      </ConfirmDialog>
    </li>
  );
}
