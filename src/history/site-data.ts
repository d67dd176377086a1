/**
 * The shape of a published history site's data files, shared by what writes them (site.ts, in Node) and the
 * page that reads them (site/page.ts, in the browser). Every string in them is a contributor's (benchmark ids,
 * commit subjects, tags, gate keys): the page shows them as text only.
 */

export interface SiteInterval {
  estimate: number;
  low: number;
  high: number;
}

/** Where a trend may start: a release in the chain, or its first record's parent. */
export interface SiteAnchor {
  label: string;
  commit: string;
  /** The chain's push the anchor is the commit of (-1: the parent of the first push): the trend starts after it. */
  after: number;
}

export interface SiteGate {
  gate: string;
  pushes: number;
  head: string;
  /** The pushes file of this gate (data/pushes-N.js). */
  pushFile: string;
  anchors: SiteAnchor[];
  /** Index into `anchors`: the newest release, else the first record. */
  defaultAnchor: number;
  /** The newest drift verdict recorded for this gate, when drift keeps a record. */
  drift?: SiteDrift | undefined;
}

export interface SiteDrift {
  commit: string;
  anchor: { commit: string; label: string };
  recorded: string;
  driftBudget: number;
  state: 'broken' | 'holds' | 'undecided' | 'failed';
  benchmarks: { id: string; verdict: string; change: SiteInterval | null }[];
}

/** A bisect's outcome (`benchgate bisect --json`), shown on the pages of the benchmarks it searched for. */
export interface SiteBisect {
  good: string;
  bad: string;
  targets: string[];
  compares: number;
  firstBad: {
    commit: string;
    subject: string;
    alone: boolean;
    changes: { id: string; sinceGood: SiteInterval; step: SiteInterval }[];
  } | null;
  /** The range the first bad commit is in, when the search could not narrow it to one. */
  undecided: { after: string; upTo: string } | null;
  noLoss: boolean;
  error: string | null;
}

export interface SiteRow {
  /** Index into `gates`. */
  gate: number;
  id: string;
  /** The benchmark's data file (data/b/N.js). */
  file: string;
  budget: number;
  /** The change from each of its gate's anchors to the newest push (95%), or null where a gap leaves none. */
  since: (SiteInterval | null)[];
  /** The chained change from the first push, thinned to a sparkline's points (null: a gap). */
  spark: (number | null)[];
  /** The newest push's verdict for it. */
  last: string | null;
  /** Pushes with a measured step. */
  measured: number;
}

/** A push that broke a benchmark's budget (a regression) or came near it. */
export interface SiteAlert {
  gate: number;
  /** Index of the push in its gate's chain. */
  push: number;
  commit: string;
  subject: string;
  date: string;
  id: string;
  file: string;
  verdict: string;
  /** The push's step as its compare measured it, at that compare's confidence. */
  step: SiteInterval & { confidence: number };
  budget: number;
  broke: boolean;
}

export interface SiteOverview {
  title: string;
  version: string;
  generated: string;
  /** https URL of the repository, for links to commits and pull requests; null: shas are shown without links. */
  repository: string | null;
  gates: SiteGate[];
  rows: SiteRow[];
  alerts: SiteAlert[];
  bisects: SiteBisect[];
}

export interface SitePush {
  commit: string;
  parent: string;
  date: string;
  subject: string;
  tags: string[];
  runner: string;
  /** The pull request the subject names ("… (#123)", "Merge pull request #123 …"), or null. */
  pr: number | null;
}

export interface SitePushes {
  gate: number;
  pushes: SitePush[];
}

/** One benchmark along its gate's chain, column by column (one entry per push; null where it has no figure). */
export interface SiteBenchmark {
  gate: number;
  id: string;
  budget: number;
  verdict: (string | null)[];
  /** Each push's step as its compare measured it, at that compare's confidence. */
  step: { estimate: (number | null)[]; low: (number | null)[]; high: (number | null)[]; confidence: (number | null)[] };
  /** The steps chained from the first push (95%), starting again after a push without its figure. */
  cumulative: { estimate: (number | null)[]; low: (number | null)[]; high: (number | null)[] };
}

/** What a data file calls: `benchgateSite("overview", {...})`. Script files, not JSON: a page opened from file:// cannot fetch. */
export type SiteDataKind = 'overview' | 'pushes' | 'benchmark';
