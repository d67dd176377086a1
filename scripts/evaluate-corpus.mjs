// npm run evaluate:corpus -- <folder of cases> [case ...]: the real gate on real performance fixes kept OUTSIDE this
// repository (fetched code is never committed). A case is a folder with base/ (the library at the fix's parent),
// head/ (at the fix), bench.mjs (one bench file through the library's public API, placed at
// benchgate-corpus/bench.mjs of each revision) and case.json ({ library, fix, title, expected, ... }).
// For each case it builds a two-commit git repository, runs `benchgate compare --profile always --solo-check` on it
// (runtime dependencies installed by benchgate, `npm install --omit=dev`), and prints one row per benchmark: the
// verdict and the shared-process change, the solo change (each revision alone in fresh processes) and its levels,
// the profile's change of CPU a call and whether it agrees, and the top-5 profile rows that read 0 at base although
// their file exists at both revisions (candidates for an unmatched function, for a person to read).
// BENCHGATE=<path to a cli.js> runs another build (an older commit's dist, for a before/after table).
// SOLO=<n> sets --solo-processes (default 24; 0: no solo check, for builds before it); BUDGET the budget (default 5%); JSON=<file> writes every row.
// MEASURE=both also counts each benchmark (instructions a call under callgrind, beside the time verdict) and prints,
// per row, the count's change against the solo check's (each revision alone in fresh processes: the time reference),
// and in the summary how many lie within 3 points of it, and how many of the others the report names as parting.
// PROFILE=never leaves the profiles out (they cost a minute a case).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gitRepo, machine } from './evaluate-lib.mjs';

const [folder, ...only] = process.argv.slice(2);
if (!folder) {
  console.error('usage: node scripts/evaluate-corpus.mjs <folder of cases> [case ...]');
  process.exit(2);
}
const cli = process.env.BENCHGATE ?? fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const solo = process.env.SOLO ?? '24';
const budget = process.env.BUDGET ?? '5%';
const measure = process.env.MEASURE;
const profileMode = process.env.PROFILE ?? 'always';
const CONFIG = `budget: ${budget}
micro:
  files: benchgate-corpus/bench.mjs
install: npm install --omit=dev --no-audit --no-fund --no-package-lock --ignore-scripts
`;

/** Every file of a folder, relative to it, as { path: text } (node_modules left out). */
function filesOf(dir, prefix = '') {
  const out = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === '.git') continue;
    const full = path.join(dir, entry.name);
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) Object.assign(out, filesOf(full, rel));
    else out[rel] = readFileSync(full);
  }
  return out;
}

const pct = (x) => (x === undefined || x === null || !Number.isFinite(x) ? '–' : `${x > 0 ? '+' : ''}${(x * 100).toFixed(1)}%`);
const interval = (c) => (c ? `${pct(c.estimate)} [${pct(c.low)}, ${pct(c.high)}]` : '–');
const levels = (side) =>
  side?.levels ? side.levels.levels.map((l) => `${(1e3 / l.opsPerSec).toFixed(3)} ms×${l.processes}`).join(', ') : '';

/** "name|file" of every frame a .cpuprofile sampled as its own (self samples), files relative to their revision's root. */
function sampledFrames(file) {
  const out = new Set();
  if (!existsSync(file)) return out;
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const hit = new Set(profile.samples ?? []);
  for (const node of profile.nodes)
    if (hit.has(node.id) && node.callFrame.url) {
      // The revisions are checked out at <temp>/benchgate-XXXX/base and …/head.
      const rel = node.callFrame.url.replace(/^file:\/\/.*?\/benchgate-[^/]+\/(?:base|head)\//, '');
      out.add(frameName(node.callFrame.functionName || '(anonymous)', rel));
    }
  return out;
}
const frameName = (name, file) => `${name}|${file}`;

const cases = readdirSync(folder)
  .filter((name) => existsSync(path.join(folder, name, 'case.json')))
  .filter((name) => !only.length || only.includes(name))
  .sort();
console.log(`${cases.length} cases from ${folder}, ${cli}, --solo-processes ${solo}, budget ${budget}; ${machine()}`);
const rows = [];
for (const name of cases) {
  const dir = path.join(folder, name);
  // A case moved away while the others ran is left out, not the end of the evaluation.
  if (!existsSync(path.join(dir, 'case.json'))) continue;
  const meta = JSON.parse(readFileSync(path.join(dir, 'case.json'), 'utf8'));
  const bench = readFileSync(path.join(dir, 'bench.mjs'));
  const side = (which) => ({ ...filesOf(path.join(dir, which)), 'benchgate-corpus/bench.mjs': bench, 'benchgate.yml': CONFIG });
  const repo = gitRepo(`benchgate-corpus-${name}-`, side('base'), side('head'));
  const started = Date.now();
  const run = spawnSync(
    process.execPath,
    [
      cli,
      'compare',
      '--base',
      'main',
      '--head',
      'feature',
      '--json',
      'report.json',
      '--profile',
      profileMode,
      ...(measure ? ['--measure', measure] : []),
      ...(solo === '0' ? [] : ['--solo-check', '--solo-processes', solo]),
    ],
    { cwd: repo, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const seconds = (Date.now() - started) / 1000;
  const reportFile = path.join(repo, 'report.json');
  if (!existsSync(reportFile)) {
    console.log(`${name}: no report (exit ${run.status}): ${(run.stderr || run.stdout).split('\n').slice(-4).join(' / ')}`);
    rows.push({ case: name, error: run.stderr.slice(-2000) });
    rmSync(repo, { recursive: true, force: true });
    continue;
  }
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  for (const b of report.benchmarks) {
    const profile = b.profile && !b.profile.error ? b.profile : undefined;
    const profileChange = profile ? profile.perOpUs.head / profile.perOpUs.base - 1 : undefined;
    // The measured change of time a call, for the direction check of profiles that carry no agreement (older builds).
    const timeChange = b.change ? 1 / (1 + b.change.estimate) - 1 : undefined;
    const contradicts =
      b.change &&
      profileChange !== undefined &&
      (b.change.low > 0 || b.change.high < 0) &&
      Math.sign(profileChange) !== Math.sign(timeChange);
    // A top-5 row at 0 at base whose file exists at both revisions is unmatched only if base's profile sampled a
    // function of that name in that file as a frame of its own (under another key); otherwise V8 inlined it into its
    // caller at base, or base never called it.
    const sampledAtBase = profile ? sampledFrames(profile.files.base) : new Set();
    const zeroAtBase = (profile?.top ?? [])
      .slice(0, 5)
      .filter((row) => row.basePerOpUs === 0 && row.location && /:\d+$/.test(row.location))
      .filter((row) => existsSync(path.join(dir, 'base', row.location.replace(/:\d+$/, ''))));
    const unmatched = zeroAtBase.filter((row) => sampledAtBase.has(frameName(row.function, row.location.replace(/:\d+$/, ''))));
    const notSampled = zeroAtBase.filter((row) => !unmatched.includes(row)).map((row) => `${row.function} ${row.location}`);
    const row = {
      case: name,
      library: meta.library,
      expected: meta.expected,
      id: b.id,
      verdict: b.verdict,
      shared: b.change,
      solo: b.solo?.change ?? null,
      soloAgreement: b.solo?.agreement ?? null,
      levels: { base: levels(b.solo?.base), head: levels(b.solo?.head) },
      soloRuns: { base: b.solo?.base?.runs ?? null, head: b.solo?.head?.runs ?? null },
      roundLevels: b.levels ?? null,
      profile: profile
        ? { process: profile.process ?? 'alone', base: profile.perOpUs.base, head: profile.perOpUs.head, change: profileChange }
        : null,
      agreement: profile?.agreement ?? null,
      // MEASURE=both: the counts beside the time verdict (instructions a call; a faster head reads positive, as time).
      counts: b.beside?.measure === 'counts' ? b.beside : null,
      note: b.note ?? null,
      contradicts,
      unmatched: unmatched.map((row) => `${row.function} ${row.location}`),
      notSampledAtBase: notSampled,
      seconds,
    };
    rows.push(row);
    console.log(
      [
        name,
        b.id.replace('benchgate-corpus/bench.mjs > ', ''),
        b.verdict,
        `shared ${interval(b.change)}`,
        `solo ${interval(b.solo?.change)} ${b.solo?.agreement ?? ''}`,
        row.levels.base && `levels base ${row.levels.base}`,
        row.levels.head && `levels head ${row.levels.head}`,
        profile
          ? `profile(${row.profile.process}) ${pct(profileChange)}${profile.agreement ? (profile.agreement.agrees ? ' agrees' : ` disagrees:${profile.agreement.disagrees}/${profile.agreement.reason}`) : ''}`
          : 'no profile',
        row.counts
          ? `counts ${interval(row.counts.change)} ${row.counts.agrees === null ? 'open' : row.counts.agrees ? 'agrees' : 'PARTS'}` +
            (row.counts.change && b.solo?.change
              ? ` (${pct(row.counts.change.estimate - b.solo.change.estimate).replace('%', ' pts')} from solo)`
              : '')
          : '',
        contradicts ? 'CONTRADICTS' : '',
        row.unmatched.length ? `UNMATCHED: ${row.unmatched.join('; ')}` : '',
        notSampled.length ? `not sampled at base (inlined there, or new): ${notSampled.join('; ')}` : '',
        `${seconds.toFixed(0)} s`,
      ]
        .filter(Boolean)
        .join(' · '),
    );
  }
  rmSync(repo, { recursive: true, force: true });
}
if (process.env.JSON) writeFileSync(process.env.JSON, JSON.stringify(rows, null, 2));
if (measure === 'both') {
  // Issue 49's target: the count's change within 3 points of a fresh-process time reference, or the parting named.
  const paired = rows.filter((r) => r.counts?.change && r.solo);
  const within = paired.filter((r) => Math.abs(r.counts.change.estimate - r.solo.estimate) <= 0.03);
  const apart = paired.filter((r) => !within.includes(r));
  // Named: the row says the two part, or (one verdict, intervals apart) says both sizes.
  const excludesZero = (c) => c.low > 0 || c.high < 0;
  const decidedBoth = paired.filter((r) => excludesZero(r.counts.change) && excludesZero(r.solo));
  const named = apart.filter((r) => r.counts.agrees === false || /not on its size/.test(r.note ?? ''));
  console.log(
    `\ncounts against the solo reference: ${paired.length} rows with both; within 3 points ${within.length}; ` +
      `apart ${apart.length}, of which the report names ${named.length} as parting and calls ${apart.length - named.length} agreeing ` +
      `(${apart
        .filter((r) => r.counts.agrees !== false)
        .map(
          (r) =>
            `${r.case} ${r.id.replace('benchgate-corpus/bench.mjs > ', '')}: counts ${pct(r.counts.change.estimate)}, solo ${pct(r.solo.estimate)}`,
        )
        .join('; ')}); ` +
      `same direction where both exclude 0: ${decidedBoth.filter((r) => Math.sign(r.counts.change.estimate) === Math.sign(r.solo.estimate)).length} of ${decidedBoth.length}; ` +
      `counts missing: ${rows.filter((r) => !r.counts?.change).length}`,
  );
}
const decided = rows.filter((r) => r.verdict === 'regression' || r.verdict === 'improvement');
console.log(
  `\n${rows.length} benchmarks; decided ${decided.length}; profile contradicts a decided verdict's direction: ${decided.filter((r) => r.contradicts).length}; ` +
    `profile disagrees (any): ${rows.filter((r) => r.agreement && !r.agreement.agrees).length}; solo disagrees: ${rows.filter((r) => r.soloAgreement === 'disagrees').length}; ` +
    `levels seen: ${rows.filter((r) => r.levels?.base || r.levels?.head).length}; top-5 rows unmatched: ${rows.reduce((n, r) => n + (r.unmatched?.length ?? 0), 0)}, not sampled at base: ${rows.reduce((n, r) => n + (r.notSampledAtBase?.length ?? 0), 0)}`,
);
