/** The part of an Octokit client drift's issue needs (so tests and other clients can stand in). */
export interface IssueApi {
  /** Open issues carrying the label, every page. */
  openIssues(label: string): Promise<{ number: number; body?: string | null; user?: { login: string; type?: string } | null }[]>;
  createIssue(issue: { title: string; body: string; labels: string[] }): Promise<number>;
  updateIssue(number: number, issue: { title: string; body: string }): Promise<void>;
}

/** The label drift's issue carries: how it finds its issue again, one per gate (the marker tells gates apart). */
export const DRIFT_LABEL = 'benchgate-drift';

export type IssueOutcome = { action: 'created' | 'updated'; number: number } | { action: 'none' };

/**
 * One issue per gate for drift, never a flood: found again by its label, its marker at the start of the body
 * and a bot author (a person's issue that copies the marker is never taken over). A broken budget opens it or
 * brings it up to date; a budget that holds again updates an open one to say so, and opens none.
 */
export async function upsertDriftIssue(
  api: IssueApi,
  options: { marker: string; title: string; body: string; broken: boolean },
): Promise<IssueOutcome> {
  const existing = (await api.openIssues(DRIFT_LABEL)).find(
    (issue) => issue.user?.type === 'Bot' && (issue.body ?? '').startsWith(`${options.marker}\n`),
  );
  const body = options.body.startsWith(options.marker) ? options.body : `${options.marker}\n${options.body}`;
  if (existing) {
    await api.updateIssue(existing.number, { title: options.title, body });
    return { action: 'updated', number: existing.number };
  }
  if (!options.broken) return { action: 'none' };
  return { action: 'created', number: await api.createIssue({ title: options.title, body, labels: [DRIFT_LABEL] }) };
}
