// npm run evaluate:offline: the decision rule (Hodges–Lehmann + signed-rank interval, adaptive looks,
// confirmation by a fresh group) replayed on real samples from a noisy 2-core machine (../shared/data/noise,
// or NOISE_DIR): one process per revision, i.e. what `isolation: process` sees. The rule of
// src/stats/decision.ts (one-sided, alpha spending across looks, Holm over the family) next to the rule it
// replaced (two-sided intervals, Bonferroni over figures × looks), for families of 1, 20 and 200 budgeted
// figures. Prints the A/A false-verdict rate (any regression in the family), the detection rate of known
// slowdowns and the median resolvable change. Deterministic (seeded).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = process.env.NOISE_DIR ?? path.join(root, '..', 'shared', 'data', 'noise');
if (!existsSync(dir)) {
  console.error(`no noise data at ${dir}: set NOISE_DIR`);
  process.exit(2);
}
const bundle = path.join(root, 'node_modules', '.cache', 'benchgate-stats.mjs');
await build({
  stdin: {
    contents: [
      "export { estimateChangeBounds, decide, regressionNominalP } from './src/stats/compare.ts';",
      "export { decisionRule, stepDown, lookCount } from './src/stats/decision.ts';",
      "export { earlyChange } from './src/stats/early.ts';",
      "export { minimumRounds } from './src/stats/signed-rank.ts';",
      "export { resolvableChange, roundSpread, roundsToConfirm } from './src/stats/power.ts';",
      "export { holdGroups } from './src/stats/mixture.ts';",
    ].join('\n'),
    resolveDir: root,
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: bundle,
  logLevel: 'warning',
  // Student's t (mixture.ts) comes from @stdlib, whose CommonJS requires node's own modules.
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
});
const {
  estimateChangeBounds,
  decide,
  regressionNominalP,
  decisionRule,
  stepDown,
  lookCount,
  minimumRounds,
  resolvableChange,
  roundSpread,
  roundsToConfirm,
  earlyChange,
  holdGroups,
} = await import(bundle);

const read = (file) =>
  readFileSync(path.join(dir, file), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
const ops = (row) => row.reps[0].hz;

/** Per-round log ratios of `variant` against base, pairing the two processes of each round (adjacent in time). */
function pairs(rows, variant, task) {
  const byRound = new Map();
  for (const row of rows.filter((r) => r.task === task)) (byRound.get(row.round) ?? byRound.set(row.round, []).get(row.round)).push(row);
  const out = [];
  for (const round of [...byRound.keys()].sort((a, b) => a - b)) {
    const group = byRound.get(round);
    const base = group.find((r) => r.variant === 'base');
    const other = group.find((r) => r.variant === variant);
    if (base && other) out.push(Math.log(ops(other) / ops(base)));
  }
  return out;
}

// A seeded generator (Park–Miller), so the table is the same on every run.
let seed = 20261122;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;

const CONFIDENCE = 0.95;
const ALPHA = 1 - CONFIDENCE;
const MIN = 10;
const MAX = 40;
const EVERY = 5;
const LOOKS = lookCount(MIN, MAX, EVERY);
const RUNS = Number(process.env.RUNS ?? 2000);

/** Rounds from the pool: consecutive from `start`, wrapping (adjacent processes stay adjacent). */
const take = (pool, from, n) => Array.from({ length: n }, (_, i) => pool.values[(from + i) % pool.values.length]);

// Intervals are memoized by (pool, start, rounds, levels): a family of 200 reuses the same windows many times.
const memo = new Map();
const cached = (key, compute) => (memo.has(key) ? memo.get(key) : (memo.set(key, compute()), memo.get(key)));
const verdictAt = (pool, start, n, lowerAlpha, upperAlpha, budget) =>
  cached(`${pool.id}|${start}|${n}|${lowerAlpha}|${upperAlpha}|${budget}`, () =>
    decide(estimateChangeBounds(take(pool, start, n), lowerAlpha, upperAlpha), budget),
  );

/** The rule benchgate used before: each two-sided interval at 1 - alpha / (figures × looks); confirmation two-sided at 95%. */
function oldRule(family) {
  const a = ALPHA / (family * LOOKS);
  const first = Math.max(MIN, minimumRounds(1 - a));
  return {
    first,
    look: (pool, start, n, budget) => verdictAt(pool, start, n, a / 2, a / 2, budget),
    final: (benchmarks) => benchmarks.map((b) => verdictAt(b.pool, b.start, b.n, a / 2, a / 2, b.budget) === 'regression'),
    confirmAlpha: ALPHA / 2,
    resolvableLevel: () => 1 - a,
  };
}

/** The rule of src/stats/decision.ts: looks at the Bonferroni share (Holm's first step), then Holm over the family's final p-values. */
function newRule(family) {
  const rule = decisionRule({ confidence: CONFIDENCE, rounds: MIN, maxRounds: MAX, lookEvery: EVERY });
  const share = ALPHA / family;
  return {
    first: Math.max(MIN, rule.minimumRounds(family)),
    look: (pool, start, n, budget) => verdictAt(pool, start, n, rule.lookAlpha(n, share), rule.lookAlpha(n, share), budget),
    final: (benchmarks) => {
      const ps = benchmarks.map((b) =>
        cached(`p|${b.pool.id}|${b.start}|${b.n}|${b.budget}`, () =>
          rule.regressionP(regressionNominalP(take(b.pool, b.start, b.n), b.budget), b.n),
        ),
      );
      const holm = stepDown(ps, ALPHA, family).share;
      return benchmarks.map(
        (b) => verdictAt(b.pool, b.start, b.n, rule.lookAlpha(b.n, share), rule.lookAlpha(b.n, holm), b.budget) === 'regression',
      );
    },
    confirmAlpha: (1 - rule.confirmationLevel) / 2,
    resolvableLevel: (n) => 1 - 2 * rule.lookAlpha(n, share),
  };
}

/** One benchmark's adaptive rounds: look, stop once decided, up to MAX. */
function runBenchmark(rule, pool, budget) {
  const start = Math.floor(random() * pool.values.length);
  let n = rule.first;
  for (; n < MAX; n = Math.min(MAX, n + EVERY)) if (rule.look(pool, start, n, budget) !== 'inconclusive') break;
  return { pool, start, n: Math.min(n, MAX), budget };
}

/** One run of a family: every benchmark's rounds, the final decisions, a fresh group for each regression. */
function runFamily(rule, pools, budget) {
  const benchmarks = pools.map((pool) => runBenchmark(rule, pool, budget));
  const flagged = rule.final(benchmarks);
  return benchmarks.map((b, i) => {
    if (!flagged[i]) return { ...b, flagged: false, regression: false };
    const fresh = take(b.pool, b.start + b.n, b.n);
    const again = decide(estimateChangeBounds(fresh, rule.confirmAlpha, rule.confirmAlpha), b.budget);
    return { ...b, flagged: true, regression: again === 'regression' };
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (x) => `${(x * 100).toFixed(1)}%`;
const spreadOf = (values) => {
  const m = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, b) => a + (b - m) ** 2, 0) / (values.length - 1));
};

const aa = read('aa_pool.jsonl');
const nulls = [...new Set(aa.map((r) => r.task))].map((task) => ({ id: `aa ${task}`, values: pairs(aa, 'head', task) }));
const slowed = [];
for (const [file, truth] of [
  ['power_sha512.jsonl', { s3: '3.5%', s5: '5–6%', s10: '7–11%' }],
  ['power_json.jsonl', { s3: '3%', s5: '5%', s10: '10%' }],
]) {
  const rows = read(file);
  const task = rows[0].task;
  for (const variant of ['s3', 's5', 's10'])
    slowed.push({ id: `${task} ${variant}`, truth: truth[variant], values: pairs(rows, variant, task) });
}
const pickNull = () => nulls[Math.floor(random() * nulls.length)];
// ONLY=sized prints the last section alone (it draws from a seed of its own, so its figures are the same either way;
// the sections before it share one stream, so they print together).
const show = (section) => !process.env.ONLY || process.env.ONLY === section;

if (show('rules')) {
  console.log(`Decision rules on process-level samples (${dir}); ${RUNS} seeded runs per row`);
  console.log(
    `rounds ${MIN}, a look every ${EVERY} up to ${MAX} (${LOOKS} looks), confidence ${CONFIDENCE}, a regression confirmed by as many fresh rounds`,
  );
  console.log(`A/A pools (spread of a round): ${nulls.map((p) => `${p.id.slice(3)} ${pct(spreadOf(p.values))}`).join(', ')}\n`);
  console.log('before: two-sided intervals, Bonferroni over figures × looks; after: one-sided, Hwang–Shih–DeCani(-4) spending, Holm\n');

  const rules = { before: oldRule, after: newRule };
  console.log(
    'A/A: identical code; a false verdict is any regression in the family (first group alone: before the fresh group confirms)\n',
  );
  console.log(
    'family  rule    first look  first group alone (b 0%)  A/A false verdicts (b 0%)  A/A false verdicts (b 2%)  median resolvable  median rounds',
  );
  for (const family of [1, 20, 200]) {
    const runs = family === 200 ? Math.ceil(RUNS / 4) : RUNS;
    for (const [name, make] of Object.entries(rules)) {
      const rule = make(family);
      const rates = [];
      const resolvable = [];
      const rounds = [];
      for (const budget of [0, 0.02]) {
        let false_ = 0;
        let flaggedRuns = 0;
        for (let i = 0; i < runs; i++) {
          const result = runFamily(rule, Array.from({ length: family }, pickNull), budget);
          if (result.some((b) => b.regression)) false_++;
          if (result.some((b) => b.flagged)) flaggedRuns++;
          if (budget === 0.02)
            for (const b of result.slice(0, 5)) {
              resolvable.push(resolvableChange(roundSpread(take(b.pool, b.start, b.n)), b.n, rule.resolvableLevel(b.n)));
              rounds.push(b.n);
            }
        }
        if (budget === 0) rates.push(`${pct(flaggedRuns / runs)} of ${runs}`);
        rates.push(`${pct(false_ / runs)} of ${runs}`);
      }
      console.log(
        `${String(family).padStart(6)}  ${name.padEnd(6)}  ${String(rule.first).padStart(10)}  ${rates[0].padStart(24)}  ${rates[1].padStart(25)}  ${rates[2].padStart(25)}  ${pct(median(resolvable)).padStart(17)}  ${String(median(rounds)).padStart(13)}`,
      );
    }
  }

  console.log('\nDetection of one slowed benchmark (budget 2%) in a family of 1, 20 or 200 (the rest A/A), before → after:');
  console.log(
    `${'data'.padEnd(22)} ${'true change'.padEnd(12)} spread/round  ${[1, 20, 200].map((f) => `family ${f}`.padStart(18)).join('')}`,
  );
  for (const pool of slowed) {
    const cells = [];
    for (const family of [1, 20, 200]) {
      const runs = family === 200 ? Math.ceil(RUNS / 4) : RUNS;
      const rate = (make) => {
        const rule = make(family);
        let caught = 0;
        for (let i = 0; i < runs; i++)
          if (runFamily(rule, [pool, ...Array.from({ length: family - 1 }, pickNull)], 0.02)[0].regression) caught++;
        return caught / runs;
      };
      cells.push(`${pct(rate(oldRule))} → ${pct(rate(newRule))}`);
    }
    console.log(
      `${pool.id.padEnd(22)} ${`-${pool.truth}`.padEnd(12)} ${pct(spreadOf(pool.values)).padStart(12)}  ${cells.map((c) => c.padStart(18)).join('')}`,
    );
  }
}

// The early look (src/stats/early.ts): a t interval on the first 3 rounds, each side at the early share of the
// Bonferroni share; a step it decides stops there, a regression after a confirmation of 3 fresh rounds. Compared with the rule
// without it ("after", whose planned looks then spend the whole share) on the same windows. On these files a
// round spreads 26-34% (one process per revision); benchgate's in-process rounds spread 1.5-3%, so each A/A pool
// is also replayed scaled to a 2% spread: the same shape of noise (tails, correlation), at the spread the early
// look meets in a run. A slowed pool is scaled around its median (its change kept, its noise at 2%).
function earlyRule(family) {
  const rule = decisionRule({ confidence: CONFIDENCE, rounds: MIN, maxRounds: MAX, lookEvery: EVERY });
  const share = ALPHA / family;
  const planned = newRuleWith(rule, family);
  return {
    ...planned,
    early: (pool, start, budget) => decide(earlyChange(take(pool, start, 3), rule.earlyAlpha(share), rule.earlyAlpha(share)), budget),
  };
}

function newRuleWith(rule, family) {
  const share = ALPHA / family;
  return {
    first: Math.max(MIN, rule.minimumRounds(family)),
    look: (pool, start, n, budget) =>
      decide(estimateChangeBounds(take(pool, start, n), rule.lookAlpha(n, share), rule.lookAlpha(n, share)), budget),
    final: (benchmarks) => {
      const ps = benchmarks.map((b) => rule.regressionP(regressionNominalP(take(b.pool, b.start, b.n), b.budget), b.n));
      const holm = stepDown(ps, ALPHA, family).share;
      return benchmarks.map(
        (b) =>
          decide(estimateChangeBounds(take(b.pool, b.start, b.n), rule.lookAlpha(b.n, share), rule.lookAlpha(b.n, holm)), b.budget) ===
          'regression',
      );
    },
    confirmAlpha: (1 - rule.confirmationLevel) / 2,
  };
}

/** One family's run with or without the early look: verdicts per benchmark (regression, improvement, unchanged, inconclusive) and rounds. */
function runWith(rule, pools, budget) {
  const started = pools.map((pool) => {
    const start = Math.floor(random() * pool.values.length);
    const early = rule.early ? rule.early(pool, start, budget) : 'inconclusive';
    // A figure decided there ends there; a regression seen there is confirmed by the 3 fresh rounds after it, read by
    // the same t interval at the confirmation's level (stats/analyze.ts).
    // Where those 3 do not show it, the fresh group goes on to the first look's size, read by its signed-rank bound.
    if (early === 'regression') {
      const quick = decide(earlyChange(take(pool, start + 3, 3), rule.confirmAlpha, rule.confirmAlpha), budget);
      if (quick === 'regression') return { pool, start, n: 6, budget, early: 'regression' };
      const again = decide(estimateChangeBounds(take(pool, start + 3, rule.first), rule.confirmAlpha, rule.confirmAlpha), budget);
      return { pool, start, n: 3 + rule.first, budget, early: again === 'regression' ? 'regression' : 'inconclusive' };
    }
    if (early !== 'inconclusive') return { pool, start, n: 3, budget, early };
    let n = rule.first;
    for (; n < MAX; n = Math.min(MAX, n + EVERY)) if (rule.look(pool, start, n, budget) !== 'inconclusive') break;
    return { pool, start, n: Math.min(n, MAX), budget };
  });
  const planned = started.filter((b) => !b.early);
  const flagged = rule.final(planned);
  return started.map((b) => {
    if (b.early) return { ...b, verdict: b.early };
    const i = planned.indexOf(b);
    if (!flagged[i])
      return {
        ...b,
        verdict: rule.look(b.pool, b.start, b.n, b.budget) === 'regression' ? 'inconclusive' : rule.look(b.pool, b.start, b.n, b.budget),
      };
    const again = decide(estimateChangeBounds(take(b.pool, b.start + b.n, b.n), rule.confirmAlpha, rule.confirmAlpha), b.budget);
    return { ...b, verdict: again === 'regression' ? 'regression' : 'inconclusive' };
  });
}

const scaled = (pool, spread) => {
  const m = median(pool.values);
  const k = spread / spreadOf(pool.values);
  return { ...pool, id: `${pool.id} (2%)`, values: pool.values.map((x) => m + (x - m) * k) };
};
const scaledNulls = nulls.map((p) => ({ ...scaled(p, 0.02), values: scaled(p, 0.02).values.map((x) => x - median(p.values) * 0) }));
const rulesEarly = {
  planned: (f) => newRuleWith(decisionRule({ confidence: CONFIDENCE, rounds: MIN, maxRounds: MAX, lookEvery: EVERY, early: false }), f),
  early: earlyRule,
};

if (show('early')) {
  console.log('\nThe early look (3 rounds, a t interval at the early share; a regression seen there is confirmed by 3 fresh rounds)');
  console.log('beside the planned looks alone, on the same windows:');
  console.log("A/A: a false verdict is any regression (or improvement) in the family; rounds: the median over the family's benchmarks\n");
  console.log('noise          family  budget  rule     false regressions  false improvements  decided early  median rounds');
  for (const [label, pools] of [
    ['raw (~30%)', nulls],
    ['scaled to 2%', scaledNulls],
  ]) {
    for (const family of [1, 20]) {
      for (const budget of [0.01, 0.02, 0.05]) {
        for (const [name, make] of Object.entries(rulesEarly)) {
          const rule = make(family);
          const runs = Math.ceil(RUNS / 4);
          let regressions = 0;
          let improvements = 0;
          let early = 0;
          const rounds = [];
          for (let i = 0; i < runs; i++) {
            const result = runWith(
              rule,
              Array.from({ length: family }, () => pools[Math.floor(random() * pools.length)]),
              budget,
            );
            if (result.some((b) => b.verdict === 'regression')) regressions++;
            if (result.some((b) => b.verdict === 'improvement')) improvements++;
            early += result.filter((b) => b.early).length;
            rounds.push(median(result.map((b) => b.n)));
          }
          console.log(
            `${label.padEnd(13)}  ${String(family).padStart(6)}  ${pct(budget).padStart(6)}  ${name.padEnd(7)}  ${`${pct(regressions / runs)} of ${runs}`.padStart(17)}  ${`${pct(improvements / runs)}`.padStart(18)}  ${pct(early / (runs * family)).padStart(13)}  ${String(median(rounds)).padStart(13)}`,
          );
        }
      }
    }
  }

  console.log('\nKnown slowdowns scaled to a 2% spread, one benchmark: how often each verdict, planned looks alone → with the early look');
  console.log(
    `${'data'.padEnd(24)} ${'true'.padEnd(7)} budget  ${['regression', 'unchanged', 'improvement', 'early', 'rounds'].map((h) => h.padStart(22)).join('')}`,
  );
  for (const pool of slowed.map((p) => scaled(p, 0.02))) {
    for (const budget of [0.01, 0.05]) {
      const stats = Object.entries(rulesEarly).map(([, make]) => {
        const rule = make(1);
        const runs = Math.ceil(RUNS / 4);
        const count = { regression: 0, unchanged: 0, improvement: 0, early: 0 };
        const rounds = [];
        for (let i = 0; i < runs; i++) {
          const [b] = runWith(rule, [pool], budget);
          if (b.verdict in count) count[b.verdict]++;
          if (b.early) count.early++;
          rounds.push(b.n);
        }
        return { ...Object.fromEntries(Object.entries(count).map(([k, v]) => [k, pct(v / runs)])), rounds: median(rounds) };
      });
      console.log(
        `${pool.id.padEnd(24)} ${`-${pool.truth}`.padEnd(7)} ${pct(budget).padStart(6)}  ${['regression', 'unchanged', 'improvement', 'early', 'rounds'].map((k) => `${stats[0][k]} → ${stats[1][k]}`.padStart(22)).join('')}`,
      );
    }
  }
}

// A confirmation sized from the loss (src/stats/power.ts roundsToConfirm): a regression the first group found is
// shown again first in the fewest fresh rounds its loss needs, and only where those do not show it, in a fresh group
// as large as the first, read there as before (src/measure/*/schedule.ts). Replayed on each A/A pool scaled to the
// spread of an HTTP round at three blocks a pair (3%) and shifted: the first group's 15 rounds (the HTTP first
// look's, read at that look's share for a family of two figures) around the loss it reads, the fresh rounds right
// after them around the true change: the same loss (a real one), or the budget itself (the first group's loss was a
// transient of its processes, what confirmation guards against: every confirmation is then a false one, so this is
// the confirmation's own error, its second look included). One-sided at the confirmation's level.
if (show('sized')) {
  seed = 20261127;
  const FIRST = 15;
  const BUDGET = 0.03;
  const rule = decisionRule({ confidence: CONFIDENCE, rounds: MIN, maxRounds: MAX, lookEvery: EVERY });
  const lookAlpha = rule.lookAlpha(FIRST, ALPHA / 2);
  const confirmAlpha = (1 - rule.confirmationLevel) / 2;
  const shifted = (pool, change) => {
    const m = median(pool.values);
    const k = 0.03 / spreadOf(pool.values);
    return { ...pool, values: pool.values.map((x) => Math.log1p(change) + (x - m) * k) };
  };
  const confirms = (fresh) => decide(estimateChangeBounds(fresh, confirmAlpha, confirmAlpha), BUDGET) === 'regression';
  console.log(
    `\nA confirmation sized from the loss: ${FIRST} rounds in the first group, budget ${pct(BUDGET)}, one-sided ${pct(1 - confirmAlpha)}; A/A pools scaled to a 3% round spread; ${RUNS} runs a row`,
  );
  console.log(
    'first group reads  fresh rounds: true change  first group flags  shown again: whole group → sized first  fresh rounds (mean): whole → sized',
  );
  for (const reads of [-0.05, -0.065, -0.08, -0.1]) {
    for (const truth of [reads, -BUDGET]) {
      let flagged = 0;
      let whole = 0;
      let sized = 0;
      let rounds = 0;
      for (let i = 0; i < RUNS; i++) {
        const pool = nulls[Math.floor(random() * nulls.length)];
        const start = Math.floor(random() * pool.values.length);
        const first = take(shifted(pool, reads), start, FIRST);
        if (decide(estimateChangeBounds(first, lookAlpha, lookAlpha), BUDGET) !== 'regression') continue;
        flagged++;
        const fresh = (n) => take(shifted(pool, truth), start + FIRST, n);
        const size = roundsToConfirm(first, BUDGET, rule.confirmationLevel, FIRST);
        const all = confirms(fresh(FIRST));
        const quick = size < FIRST && confirms(fresh(size));
        whole += all ? 1 : 0;
        sized += quick || all ? 1 : 0;
        rounds += quick ? size : FIRST;
      }
      const of = (k) => pct(k / Math.max(1, flagged));
      console.log(
        `${pct(reads).padStart(17)}  ${pct(truth).padStart(24)}  ${pct(flagged / RUNS).padStart(16)}  ${`${of(whole)} → ${of(sized)}`.padStart(39)}  ${`${FIRST.toFixed(1)} → ${(rounds / Math.max(1, flagged)).toFixed(1)}`.padStart(35)}`,
      );
    }
  }
}

// A small group's bound (src/stats/mixture.ts: a group of fewer than 20 rounds on a level of its own is bounded by
// Student's t on its mean) on skewed, heavy-tailed rounds: what its one-sided error really is, where t assumes normal
// rounds. Each A/A pool (one process per revision: rounds spread 26-34%, skewed, with outliers, the harshest rounds
// these files hold; t is scale-free, so a pool scaled to a 2% spread reads the same) is the population: a group is m of
// its rounds, drawn at random (rounds of a level come from processes far apart in the run) or m adjacent ones
// (adjacent processes correlate, r 0.4-0.66), and its bound at error alpha is wrong where it excludes the pool's mean.
// Only the group's own spread scales it here; in a run the scale is never below the spread within all groups pooled,
// which only widens it. Each side's error is shown (lower bound above the mean / upper bound below it); signed rank, from
// 20 rounds, is exact under symmetry.
if (show('groups')) {
  seed = 20261130;
  const DRAWS = Number(process.env.DRAWS ?? 40000);
  const open = { estimate: 0, low: Infinity, high: -Infinity };
  const meanOf = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(
    `\nA small group's t bound on real skewed rounds: its one-sided error per side (lower/upper) against alpha; ${DRAWS} groups a cell`,
  );
  console.log('rounds  alpha      random draws (lower / upper)   adjacent rounds (lower / upper)');
  for (const m of [3, 5, 8, 12, 19])
    for (const alpha of [1e-2, 1e-3, 1e-4]) {
      const wrong = { random: [0, 0], adjacent: [0, 0] };
      for (let i = 0; i < DRAWS; i++) {
        const pool = nulls[i % nulls.length];
        const centre = Math.expm1(meanOf(pool.values));
        const start = Math.floor(random() * pool.values.length);
        const groups = {
          random: Array.from({ length: m }, () => pool.values[Math.floor(random() * pool.values.length)]),
          adjacent: take(pool, start, m),
        };
        for (const [kind, g] of Object.entries(groups)) {
          const held = holdGroups(open, [g], alpha, alpha);
          if (held.low > centre) wrong[kind][0]++;
          if (held.high < centre) wrong[kind][1]++;
        }
      }
      const rate = (k) => (k / DRAWS).toExponential(1);
      console.log(
        `${String(m).padStart(6)}  ${alpha.toExponential(0).padEnd(6)} ${`${rate(wrong.random[0])} / ${rate(wrong.random[1])}`.padStart(30)}   ${`${rate(wrong.adjacent[0])} / ${rate(wrong.adjacent[1])}`.padStart(31)}`,
      );
    }
}
