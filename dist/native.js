import { createRequire as __benchgateRequire } from 'node:module'; const require = __benchgateRequire(import.meta.url);

// src/measure/native/observer.ts
import { appendFileSync } from "node:fs";
import Module, { register } from "node:module";
import path from "node:path";
import { threadId } from "node:worker_threads";

// src/measure/native/figures.ts
var T95 = [
  12.706,
  4.303,
  3.182,
  2.776,
  2.571,
  2.447,
  2.365,
  2.306,
  2.262,
  2.228,
  2.201,
  2.179,
  2.16,
  2.145,
  2.131,
  2.12,
  2.11,
  2.101,
  2.093,
  2.086,
  2.08,
  2.074,
  2.069,
  2.064,
  2.06,
  2.056,
  2.052,
  2.048,
  2.045,
  2.042
];
function tQuantile95(df) {
  return df >= 1 && df <= T95.length ? T95[Math.floor(df) - 1] : 1.96;
}
function relativeMargin(samples) {
  const n = samples.length;
  if (n < 2) return void 0;
  const mean = samples.reduce((sum, x) => sum + x, 0) / n;
  if (!(mean > 0)) return void 0;
  const variance = samples.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (n - 1);
  return tQuantile95(n - 1) * Math.sqrt(variance) / Math.sqrt(n) / mean * 100;
}

// src/measure/native/observe.ts
var observed = /* @__PURE__ */ new WeakSet();
function once(target) {
  if (typeof target !== "function" || observed.has(target)) return false;
  observed.add(target);
  return true;
}
function nameOf(...candidates) {
  for (const name of candidates) {
    if (typeof name === "string") return name;
    if (typeof name === "number") return String(name);
  }
  return "";
}
function message(error) {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
function observeBenchmarkjs(Benchmark, report) {
  if (!once(Benchmark)) return;
  const suiteOf = /* @__PURE__ */ new WeakMap();
  const watched = /* @__PURE__ */ new WeakSet();
  const Suite = Benchmark.Suite;
  const runSuite = Suite?.prototype.run;
  if (Suite && typeof runSuite === "function")
    Suite.prototype.run = function(...args) {
      for (let i = 0; i < this.length; i++) if (typeof this.name === "string" && this.name) suiteOf.set(this[i], this.name);
      return runSuite.apply(this, args);
    };
  const run = Benchmark.prototype.run;
  if (typeof run !== "function") return;
  Benchmark.prototype.run = function(...args) {
    if (!this._original && !watched.has(this)) {
      watched.add(this);
      this.on("complete", () => report(benchmarkjsRecord(this, suiteOf.get(this))));
    }
    return run.apply(this, args);
  };
}
function benchmarkjsRecord(bench, suite) {
  const base = { harness: "benchmark.js", suites: suite ? [suite] : [], name: nameOf(bench.name) };
  if (bench.error) return { ...base, error: message(bench.error) };
  if (bench.aborted) return { ...base, error: "aborted" };
  return {
    ...base,
    ...typeof bench.hz === "number" ? { opsPerSec: bench.hz } : {},
    ...typeof bench.stats?.rme === "number" ? { rme: bench.stats.rme } : {},
    ...Array.isArray(bench.stats?.sample) ? { samples: bench.stats.sample.length } : {}
  };
}
function observeTinybench(Bench, report) {
  if (!once(Bench)) return;
  const proto = Bench.prototype;
  const read = (bench) => {
    for (const task of bench.tasks ?? []) report(tinybenchRecord(bench, task));
  };
  for (const method of ["run", "runConcurrently"]) {
    const original = proto[method];
    if (typeof original !== "function") continue;
    proto[method] = async function(...args) {
      const result = await original.apply(this, args);
      read(this);
      return result;
    };
  }
  const runSync = proto.runSync;
  if (typeof runSync === "function")
    proto.runSync = function(...args) {
      const result = runSync.apply(this, args);
      read(this);
      return result;
    };
}
function tinybenchRecord(bench, task) {
  const base = {
    harness: "tinybench",
    suites: typeof bench.name === "string" && bench.name ? [bench.name] : [],
    name: nameOf(task.name)
  };
  const result = task.result;
  if (!result) return { ...base, error: "no result (the task did not run)" };
  if (result.error !== void 0) return { ...base, error: message(result.error) };
  const throughput = result.throughput;
  const ops = throughput ? throughput.mean : result.hz;
  const rme = throughput ? throughput.rme : result.rme;
  const samples = throughput ? throughput.samplesCount : Array.isArray(result.samples) ? result.samples.length : void 0;
  return {
    ...base,
    ...typeof ops === "number" ? { opsPerSec: ops } : {},
    ...typeof rme === "number" ? { rme } : {},
    ...typeof samples === "number" ? { samples } : {}
  };
}
function observeMitataRun(run, report) {
  if (typeof run !== "function") return run;
  return async function(...args) {
    const result = await run.apply(this, args);
    for (const record of mitataRecords(result)) report(record);
    return result;
  };
}
function mitataRecords(result) {
  const layout = Array.isArray(result?.layout) ? result.layout : [];
  return (Array.isArray(result?.benchmarks) ? result.benchmarks : []).flatMap((trial) => {
    const group = typeof trial.group === "number" ? layout[trial.group]?.name : void 0;
    const suites = typeof group === "string" && group ? [group] : [];
    return (Array.isArray(trial.runs) ? trial.runs : []).map((one) => {
      const base = { harness: "mitata", suites, name: nameOf(one.name, trial.alias) };
      if (one.error !== void 0) return { ...base, error: message(one.error) };
      const avg = one.stats?.avg;
      const samples = Array.isArray(one.stats?.samples) ? one.stats.samples.filter((x) => typeof x === "number") : [];
      const rme = relativeMargin(samples);
      return {
        ...base,
        ...typeof avg === "number" && avg > 0 ? { opsPerSec: 1e9 / avg } : {},
        ...rme !== void 0 ? { rme } : {},
        ...samples.length ? { samples: samples.length } : {}
      };
    });
  });
}
var NativeObserver = class {
  constructor(report) {
    this.report = report;
  }
  report;
  benchmarkjs(namespace) {
    observeBenchmarkjs(namespace.default, this.report);
  }
  tinybench(namespace) {
    const Bench = namespace.Bench ?? namespace.default?.Bench;
    observeTinybench(Bench, this.report);
  }
  /** mitata's exports are live bindings: the generated module exports these in their place, `run` observed. */
  mitata(real) {
    return { ...real, run: observeMitataRun(real.run, this.report) };
  }
  vitest() {
    throw new Error("benchgate does not run vitest bench files natively: they run under vitest bench");
  }
  /** cronometro's files are not run natively (check.ts, notRunnable): one that imports it beside another harness gets the real one. */
  cronometro(real) {
    return real;
  }
  /** A `require()` of a harness (CommonJS does not pass through the module hooks on Node 20): the module it returns. */
  required(request, loaded) {
    if (request === "benchmark") observeBenchmarkjs(loaded, this.report);
    else if (request === "tinybench") this.tinybench(loaded);
    else if (request === "mitata" && typeof loaded === "object" && loaded !== null) return this.mitata(loaded);
    return loaded;
  }
};

// src/measure/native/observer.ts
var OBSERVED = ["benchmark", "tinybench", "mitata"];
function install(out2) {
  const observer = new NativeObserver((record) => {
    try {
      appendFileSync(out2, `${JSON.stringify({ ...record, thread: threadId })}
`);
    } catch {
    }
  });
  globalThis[/* @__PURE__ */ Symbol.for("benchgate.native")] = observer;
  register(new URL("./hooks.js", import.meta.url), {
    data: { transform: new URL("./typescript.js", import.meta.url).href, answer: "benchgate.native" }
  });
  const internal = Module;
  const load = internal._load;
  internal._load = function(request, parent, isMain) {
    const loaded = load.call(this, request, parent, isMain);
    const fromProject = parent?.filename && !parent.filename.includes(`${path.sep}node_modules${path.sep}`);
    return OBSERVED.includes(request) && fromProject ? observer.required(request, loaded) : loaded;
  };
}
var out = process.env.BENCHGATE_NATIVE_OUT;
if (out) install(out);
