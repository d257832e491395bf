/**
 * A provider's answer ("channel_not_found: the channel … : recreate the hook …") with its
 * error string set off, so the code stands out from the fix. The text stays the same.
 */
export function ProviderMessage({ text }: { text: string }) {
  const match = /^([a-z][a-z0-9_]*|HTTP \d{3}): (.+)$/s.exec(text);
  if (!match) return <>{text}</>;
  return (
    <>
      <code className="provider-code">{match[1]}</code>: {match[2]}
    </>
  );
}

/** Notifications stopped after a provider refused one: why, and how to resume them. */
export function PausedNotice({ reason }: { reason: string }) {
  return (
    <div className="banner banner-warning" data-testid="notifications-paused">
      <span className="alert-icon" aria-hidden="true">
        !
      </span>
      <div className="banner-body">
        <p className="banner-title">Notifications are paused</p>
        <p>
          The provider refused the last message: <ProviderMessage text={reason} />
        </p>
        <p className="banner-next">
          <strong>Saving a new webhook URL resumes notifications.</strong> Nothing is posted until then.
        </p>
      </div>
    </div>
  );
}

/** The last message that failed while notifications stay on. */
export function LastErrorNotice({ error }: { error: string }) {
  return (
    <div className="banner banner-error" data-testid="notifications-last-error">
      <span className="alert-icon" aria-hidden="true">
        !
      </span>
      <div className="banner-body">
        <p className="banner-title">Last error</p>
        <p>
          <ProviderMessage text={error} />
        </p>
        <p className="banner-next">Notifications stay on. If the URL changed, saving the new one resumes normal posting.</p>
      </div>
    </div>
  );
}
