import type { Notice } from '../services/stores/auth';

/** A form's message: an alert for errors, a polite status for successes. */
export function FormNotice({ notice, testId }: { notice: Notice | undefined; testId: string }) {
  if (notice === undefined) return <p className="message" role="status" data-testid={testId} />;
  return (
    <p
      className={`message ${notice.tone}`}
      role={notice.tone === 'error' ? 'alert' : 'status'}
      data-testid={testId}
    >
      {notice.text}
    </p>
  );
}
