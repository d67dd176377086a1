import type { ActionEnvironment } from '../src/config/action-inputs.js';

/** A pull_request event's environment for parseActionInputs, with what a test changes. */
export const actionEnv = (over: Partial<ActionEnvironment> = {}): ActionEnvironment => ({
  eventName: 'pull_request',
  event: { pull_request: { number: 5, base: { sha: 'b'.repeat(40) } } },
  workspace: '/w',
  runnerTemp: '/t',
  repository: 'octo/todo',
  ...over,
});

/** core.getInput over a table of inputs: '' for one not given, as the runner does. */
export const actionInputs = (values: Record<string, string>) => (name: string) => values[name] ?? '';
