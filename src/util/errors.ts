/**
 * An error a user can act on: bad config, a revision that does not resolve, a
 * failed install. The CLI prints its message alone (no stack) and exits with 2.
 */
export class UserError extends Error {
  override name = 'UserError';
}

/** The message of anything thrown, Error or not. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
}

/** What a failed run reports: a UserError's message alone, another Error with its stack (a bug to report), anything else as text. */
export function describeFailure(error: unknown): string {
  if (error instanceof UserError) return error.message;
  if (error instanceof Error) return error.stack ?? error.message;
  return messageOf(error);
}
