"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);

// src/measure/http/probe.ts
var probe_exports = {};
__export(probe_exports, {
  mergedPercentile: () => mergedPercentile
});
module.exports = __toCommonJS(probe_exports);
var import_node_fs = require("node:fs");
var import_node_net = __toESM(require("node:net"), 1);
var import_node_os = __toESM(require("node:os"), 1);
var import_node_v8 = __toESM(require("node:v8"), 1);
var import_node_vm = __toESM(require("node:vm"), 1);

// src/measure/profiler.ts
var import_node_inspector = require("node:inspector");
function post(session, method, params) {
  return new Promise((resolve, reject) => {
    session.post(method, params, (error, result) => error ? reject(error) : resolve(result));
  });
}
async function startProfiler(intervalUs) {
  const session = new import_node_inspector.Session();
  session.connect();
  await post(session, "Profiler.enable");
  await post(session, "Profiler.setSamplingInterval", { interval: intervalUs });
  await post(session, "Profiler.start");
  return {
    async stop() {
      try {
        const { profile } = await post(session, "Profiler.stop");
        return profile;
      } finally {
        session.disconnect();
      }
    }
  };
}

// src/measure/http/probe.ts
var import_node_perf_hooks = require("node:perf_hooks");
var GC_KINDS = {
  [import_node_perf_hooks.constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [import_node_perf_hooks.constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [import_node_perf_hooks.constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [import_node_perf_hooks.constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb"
};
var EVENT_LOOP_RESOLUTION_MS = 10;
var PARENT_CHECK_MS = 500;
function exitWithParent(pid, everyMs = PARENT_CHECK_MS) {
  if (!Number.isSafeInteger(pid) || pid <= 1) return void 0;
  return setInterval(() => {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if (error.code === "ESRCH") process.exit(1);
    }
  }, everyMs).unref();
}
var PARENT_CHECK_COUNTED_MS = 1e4;
function install(socketPath2) {
  const parentPid = Number(process.env.BENCHGATE_PARENT_PID);
  let parentCheck = exitWithParent(parentPid);
  let counted = false;
  delete process.env.BENCHGATE_PROBE_SOCKET;
  delete process.env.BENCHGATE_PARENT_PID;
  if (process.env.NODE_OPTIONS)
    process.env.NODE_OPTIONS = process.env.NODE_OPTIONS.replace(/--require[= ]("[^"]*probe\.cjs"|\S*probe\.cjs)/, "").trim();
  let segments = [];
  let segment;
  let active = false;
  let windowMs = 0;
  let openedAt = 0;
  let elu;
  let busy = { idle: 0, active: 0 };
  let gc = { count: 0, totalMs: 0, byKind: {} };
  let peakRss = 0;
  let peakHeap = 0;
  let sampler;
  const sampleMemory = () => {
    const memory = process.memoryUsage();
    peakRss = Math.max(peakRss, memory.rss);
    peakHeap = Math.max(peakHeap, memory.heapUsed);
  };
  const recordGc = (entries) => {
    if (!active) return;
    for (const entry of entries) {
      const kind = GC_KINDS[entry.detail?.kind ?? -1] ?? "other";
      gc.count++;
      gc.totalMs += entry.duration;
      const slot = gc.byKind[kind] ??= { count: 0, totalMs: 0 };
      slot.count++;
      slot.totalMs += entry.duration;
    }
  };
  const observer = new import_node_perf_hooks.PerformanceObserver((list) => recordGc(list.getEntries()));
  observer.observe({ entryTypes: ["gc"] });
  const resume = () => {
    if (active) return;
    active = true;
    openedAt = import_node_perf_hooks.performance.now();
    elu = import_node_perf_hooks.performance.eventLoopUtilization();
    segment = (0, import_node_perf_hooks.monitorEventLoopDelay)({ resolution: EVENT_LOOP_RESOLUTION_MS });
    segment.enable();
    sampleMemory();
    sampler = setInterval(sampleMemory, 25);
    sampler.unref();
  };
  const pause = () => {
    if (!active) return;
    recordGc(observer.takeRecords());
    active = false;
    windowMs += import_node_perf_hooks.performance.now() - openedAt;
    const used = import_node_perf_hooks.performance.eventLoopUtilization(elu);
    busy = { idle: busy.idle + used.idle, active: busy.active + used.active };
    segment?.disable();
    if (segment && segment.count > 0) segments.push(segment);
    segment = void 0;
    clearInterval(sampler);
    sampleMemory();
  };
  let profiler;
  const handle = async (line) => {
    const [command, ...rest] = line.split(" ");
    const argument = rest.join(" ");
    switch (command) {
      case "profile-start":
        await profiler?.stop();
        profiler = await startProfiler(Number(argument) || 100);
        return { ok: true };
      case "profile-stop": {
        if (!profiler) return { ok: false, error: "the profiler is not running" };
        const profile = await profiler.stop();
        profiler = void 0;
        (0, import_node_fs.writeFileSync)(argument, JSON.stringify(profile));
        return { ok: true, samples: profile.samples?.length ?? 0 };
      }
      case "mark":
        if (!counted) {
          counted = true;
          clearInterval(parentCheck);
          parentCheck = exitWithParent(parentPid, PARENT_CHECK_COUNTED_MS);
        }
        if (argument === "young") youngCollection();
        import_node_os.default.getPriority();
        return { ok: true };
      case "hello":
        return { ok: true, pid: process.pid, node: process.version };
      case "start":
        pause();
        segments = [];
        windowMs = 0;
        busy = { idle: 0, active: 0 };
        gc = { count: 0, totalMs: 0, byKind: {} };
        peakRss = 0;
        peakHeap = 0;
        resume();
        return { ok: true };
      case "pause":
        pause();
        return { ok: true };
      case "resume":
        resume();
        return { ok: true };
      case "stop": {
        pause();
        const ms = (ns) => Number.isFinite(ns) ? Math.max(0, ns / 1e6 - EVENT_LOOP_RESOLUTION_MS) : 0;
        const figures = {
          windowMs,
          eventLoopDelay: {
            p50: ms(mergedPercentile(segments, 50)),
            p99: ms(mergedPercentile(segments, 99)),
            max: ms(Math.max(0, ...segments.map((h) => h.max)))
          },
          eventLoopUtilization: busy.active + busy.idle > 0 ? busy.active / (busy.active + busy.idle) : 0,
          gc,
          peakRssBytes: peakRss,
          peakHeapUsedBytes: peakHeap
        };
        return { ok: true, figures };
      }
      default:
        return { ok: false, error: `unknown command ${command}` };
    }
  };
  const server = import_node_net.default.createServer((socket) => {
    socket.unref();
    socket.setEncoding("utf8");
    let buffer = "";
    socket.on("data", (chunk) => {
      buffer += chunk;
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const command = buffer.slice(0, end).trim();
        buffer = buffer.slice(end + 1);
        handle(command).then(
          (reply) => socket.write(`${JSON.stringify(reply)}
`),
          (error) => socket.write(`${JSON.stringify({ ok: false, error: String(error) })}
`)
        );
      }
    });
    socket.on("error", () => void 0);
  });
  server.on("error", () => void 0);
  server.listen(socketPath2);
  server.unref();
}
var collector;
function youngCollection() {
  if (!collector) {
    import_node_v8.default.setFlagsFromString("--expose-gc");
    collector = import_node_vm.default.runInNewContext("gc");
  }
  collector({ type: "minor", execution: "sync" });
}
function mergedPercentile(histograms, percentile) {
  const total = histograms.reduce((sum, h) => sum + h.count, 0);
  if (total === 0) return 0;
  const cdf = (h, value) => {
    let reached = 0;
    for (const [p, v] of h.percentiles) if (v <= value && p > reached) reached = p;
    return reached;
  };
  const candidates = [...new Set(histograms.flatMap((h) => [...h.percentiles.values()]))].sort((a, b) => a - b);
  for (const value of candidates) {
    const mixed = histograms.reduce((sum, h) => sum + h.count * cdf(h, value), 0) / total;
    if (mixed >= percentile) return value;
  }
  return candidates[candidates.length - 1] ?? 0;
}
var socketPath = process.env.BENCHGATE_PROBE_SOCKET;
if (socketPath) install(socketPath);
// Annotate the CommonJS export names for ESM import in node:
0 && (module.exports = {
  mergedPercentile
});
