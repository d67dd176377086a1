/**
 * How large a regression's fresh group is, for both schedules (micro and HTTP): the whole group, and the rounds it
 * starts with before it goes on to the whole (docs/statistics.md, "Confirmation" and "A confirmation sized from the loss").
 */

/**
 * The whole fresh group: as many rounds as the first group ran (`done`), at least the first look's (`plannedRounds`)
 * and the run's `confirmRounds`; 0 where nothing is confirmed (`confirm: false`).
 */
export function wholeGroup(confirmRounds: number, plannedRounds: number, done: number): number {
  return confirmRounds > 0 ? Math.max(confirmRounds, plannedRounds, done) : 0;
}

/**
 * The rounds the fresh group starts with, from the size the run asks for (a whole number from 1), never beyond the
 * whole group; the whole group where none is asked (or what is asked is not a count of rounds).
 */
export function firstGroup(size: number | undefined, whole: number): number {
  return size !== undefined && Number.isInteger(size) && size > 0 ? Math.min(whole, size) : whole;
}
