import type { ExpectedStatus } from './types.js';

/** Whether a response's status is one the request expects: 404 matches 404, '4xx' matches 400 to 499. */
export function expectsStatus(expected: readonly ExpectedStatus[], status: number): boolean {
  return expected.some((e) => (typeof e === 'number' ? e === status : Math.floor(status / 100) === Number(e[0])));
}

/** The expected statuses for people: "2xx", "404", "200 or 304". */
export function describeExpected(expected: readonly ExpectedStatus[]): string {
  const all = expected.map(String);
  return all.length <= 1 ? (all[0] ?? '2xx') : `${all.slice(0, -1).join(', ')} or ${all.at(-1)}`;
}
