import { createRequire as __benchgateRequire } from 'node:module'; const require = __benchgateRequire(import.meta.url);

// src/measure/micro/runner.ts
import { readFileSync as readFileSync9, readSync as readSync2, rmSync as rmSync3, statSync as statSync3, writeFileSync } from "node:fs";
import { findSourceMap } from "node:module";
import path11 from "node:path";
import { fileURLToPath as fileURLToPath4, pathToFileURL as pathToFileURL7 } from "node:url";

// src/measure/profiler.ts
import { Session } from "node:inspector";
function post(session, method, params) {
  return new Promise((resolve, reject) => {
    session.post(method, params, (error, result) => error ? reject(error) : resolve(result));
  });
}
async function startProfiler(intervalUs) {
  const session = new Session();
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
var profileClockUs = () => Number(process.hrtime.bigint() / 1000n);
function splitProfile(profile, spans) {
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const parts = new Map(spans.map((s2) => [s2.label, { samples: [], durations: [] }]));
  const sorted = [...spans].sort((a2, b) => a2.startUs - b.startUs);
  const mean2 = samples.length ? (profile.endTime - profile.startTime) / samples.length : 0;
  let time = profile.startTime;
  let at = 0;
  samples.forEach((id, i2) => {
    time += deltas[i2] ?? 0;
    while (at < sorted.length && sorted[at].endUs <= time) at++;
    const span = sorted[at];
    if (!span || time < span.startUs) return;
    const part = parts.get(span.label);
    part.samples.push(id);
    part.durations.push(Math.max(0, deltas[i2 + 1] ?? mean2));
  });
  const split = /* @__PURE__ */ new Map();
  const hitsOf = /* @__PURE__ */ new Map();
  for (const [label, part] of parts) {
    const hits = /* @__PURE__ */ new Map();
    for (const id of part.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
    hitsOf.set(label, hits);
  }
  for (const [label, part] of parts) {
    const hits = hitsOf.get(label);
    const nodes = profile.nodes.map((node) => {
      const { positionTicks, ...rest } = node;
      const mine = hits.get(node.id) ?? 0;
      const all = [...hitsOf.values()].reduce((sum2, of) => sum2 + (of.get(node.id) ?? 0), 0);
      const ticks = mine === 0 || !positionTicks ? void 0 : positionTicks.map((tick) => ({ ...tick, ticks: Math.round(tick.ticks * mine / all) })).filter((tick) => tick.ticks > 0);
      return { ...rest, hitCount: mine, ...ticks?.length ? { positionTicks: ticks } : {} };
    });
    const total = part.durations.reduce((sum2, us) => sum2 + us, 0);
    split.set(label, {
      nodes,
      startTime: profile.startTime,
      endTime: profile.startTime + total,
      samples: part.samples,
      // Sample j starts where sample j-1 ended.
      timeDeltas: part.durations.map((_2, j2) => j2 === 0 ? 0 : part.durations[j2 - 1])
    });
  }
  return split;
}

// node_modules/simple-statistics/dist/simple-statistics.mjs
function sum(x2) {
  if (x2.length === 0) {
    return 0;
  }
  var sum2 = x2[0];
  var correction = 0;
  var transition;
  if (typeof sum2 !== "number") {
    return Number.NaN;
  }
  for (var i2 = 1; i2 < x2.length; i2++) {
    if (typeof x2[i2] !== "number") {
      return Number.NaN;
    }
    transition = sum2 + x2[i2];
    if (Math.abs(sum2) >= Math.abs(x2[i2])) {
      correction += sum2 - transition + x2[i2];
    } else {
      correction += x2[i2] - transition + sum2;
    }
    sum2 = transition;
  }
  return sum2 + correction;
}
function mean(x2) {
  if (x2.length === 0) {
    throw new Error("mean requires at least one data point");
  }
  return sum(x2) / x2.length;
}
function sumNthPowerDeviations(x2, n2) {
  var meanValue = mean(x2);
  var sum2 = 0;
  var tempValue;
  var i2;
  if (n2 === 2) {
    for (i2 = 0; i2 < x2.length; i2++) {
      tempValue = x2[i2] - meanValue;
      sum2 += tempValue * tempValue;
    }
  } else {
    for (i2 = 0; i2 < x2.length; i2++) {
      sum2 += Math.pow(x2[i2] - meanValue, n2);
    }
  }
  return sum2;
}
function sampleVariance(x2) {
  if (x2.length < 2) {
    throw new Error("sampleVariance requires at least two data points");
  }
  var sumSquaredDeviationsValue = sumNthPowerDeviations(x2, 2);
  var besselsCorrection = x2.length - 1;
  return sumSquaredDeviationsValue / besselsCorrection;
}
function quantileSorted(x2, p2) {
  var idx = (x2.length - 1) * p2;
  if (x2.length === 0) {
    throw new Error("quantile requires at least one data point.");
  } else if (p2 < 0 || p2 > 1) {
    throw new Error("quantiles must be between 0 and 1");
  } else if (p2 === 1) {
    return x2[x2.length - 1];
  } else if (p2 === 0) {
    return x2[0];
  } else if (idx % 1 !== 0) {
    var lower = Math.floor(idx);
    var upper = Math.ceil(idx);
    var fraction = idx - lower;
    return x2[lower] + fraction * (x2[upper] - x2[lower]);
  } else {
    return x2[idx];
  }
}
function quickselect(arr, k2, left, right) {
  left = left || 0;
  right = right || arr.length - 1;
  while (right > left) {
    if (right - left > 600) {
      var n2 = right - left + 1;
      var m2 = k2 - left + 1;
      var z3 = Math.log(n2);
      var s2 = 0.5 * Math.exp(2 * z3 / 3);
      var sd = 0.5 * Math.sqrt(z3 * s2 * (n2 - s2) / n2);
      if (m2 - n2 / 2 < 0) {
        sd *= -1;
      }
      var newLeft = Math.max(left, Math.floor(k2 - m2 * s2 / n2 + sd));
      var newRight = Math.min(
        right,
        Math.floor(k2 + (n2 - m2) * s2 / n2 + sd)
      );
      quickselect(arr, k2, newLeft, newRight);
    }
    var t2 = arr[k2];
    var i2 = left;
    var j2 = right;
    swap(arr, left, k2);
    if (arr[right] > t2) {
      swap(arr, left, right);
    }
    while (i2 < j2) {
      swap(arr, i2, j2);
      i2++;
      j2--;
      while (arr[i2] < t2) {
        i2++;
      }
      while (arr[j2] > t2) {
        j2--;
      }
    }
    if (arr[left] === t2) {
      swap(arr, left, j2);
    } else {
      j2++;
      swap(arr, j2, right);
    }
    if (j2 <= k2) {
      left = j2 + 1;
    }
    if (k2 <= j2) {
      right = j2 - 1;
    }
  }
}
function swap(arr, i2, j2) {
  var tmp = arr[i2];
  arr[i2] = arr[j2];
  arr[j2] = tmp;
}
function quantile(x2, p2) {
  var copy = x2.slice();
  if (Array.isArray(p2)) {
    multiQuantileSelect(copy, p2);
    var results = [];
    for (var i2 = 0; i2 < p2.length; i2++) {
      results[i2] = quantileSorted(copy, p2[i2]);
    }
    return results;
  } else {
    var idx = quantileIndex(copy.length, p2);
    quantileSelect(copy, idx, 0, copy.length - 1);
    return quantileSorted(copy, p2);
  }
}
function quantileSelect(arr, k2, left, right) {
  if (k2 % 1 === 0) {
    quickselect(arr, k2, left, right);
  } else {
    k2 = Math.floor(k2);
    quickselect(arr, k2, left, right);
    quickselect(arr, k2 + 1, k2 + 1, right);
  }
}
function multiQuantileSelect(arr, p2) {
  var positions = /* @__PURE__ */ new Set();
  for (var i2 = 0; i2 < p2.length; i2++) {
    var idx = quantileIndex(arr.length, p2[i2]);
    positions.add(Math.floor(idx));
    positions.add(Math.ceil(idx));
  }
  var indices = Array.from(positions).sort(compare);
  multiselect(arr, indices, 0, indices.length - 1, 0, arr.length - 1);
}
function multiselect(arr, indices, lo, hi, left, right) {
  if (lo > hi) {
    return;
  }
  var mid = lo + hi >> 1;
  quickselect(arr, indices[mid], left, right);
  multiselect(arr, indices, lo, mid - 1, left, indices[mid] - 1);
  multiselect(arr, indices, mid + 1, hi, indices[mid] + 1, right);
}
function compare(a2, b) {
  return a2 - b;
}
function quantileIndex(len, p2) {
  var idx = (len - 1) * p2;
  if (p2 === 1) {
    return len - 1;
  } else if (p2 === 0) {
    return 0;
  } else if (idx % 1 !== 0) {
    return idx;
  } else {
    return idx;
  }
}
function median(x2) {
  return +quantile(x2, 0.5);
}
function medianAbsoluteDeviation(x2) {
  var medianValue = median(x2);
  var medianAbsoluteDeviations = [];
  for (var i2 = 0; i2 < x2.length; i2++) {
    medianAbsoluteDeviations.push(Math.abs(x2[i2] - medianValue));
  }
  return median(medianAbsoluteDeviations);
}
var BayesianClassifier = function BayesianClassifier2() {
  this.totalCount = 0;
  this.data = {};
};
BayesianClassifier.prototype.train = function train(item, category) {
  if (!this.data[category]) {
    this.data[category] = {};
  }
  for (var k2 in item) {
    var v2 = item[k2];
    if (this.data[category][k2] === void 0) {
      this.data[category][k2] = {};
    }
    if (this.data[category][k2][v2] === void 0) {
      this.data[category][k2][v2] = 0;
    }
    this.data[category][k2][v2]++;
  }
  this.totalCount++;
};
BayesianClassifier.prototype.score = function score(item) {
  var odds = {};
  var category;
  for (var k2 in item) {
    var v2 = item[k2];
    for (category in this.data) {
      if (odds[category] === void 0) {
        odds[category] = {};
      }
      if (this.data[category][k2]) {
        odds[category][k2 + "_" + v2] = (this.data[category][k2][v2] || 0) / this.totalCount;
      } else {
        odds[category][k2 + "_" + v2] = 0;
      }
    }
  }
  var oddsSums = {};
  for (category in odds) {
    oddsSums[category] = 0;
    for (var combination in odds[category]) {
      oddsSums[category] += odds[category][combination];
    }
  }
  return oddsSums;
};
var g = 607 / 128;
var LOGSQRT2PI = Math.log(Math.sqrt(2 * Math.PI));
var SQRT_2PI$1 = Math.sqrt(2 * Math.PI);
function cumulativeDistribution(z3) {
  var sum2 = z3;
  var tmp = z3;
  for (var i2 = 1; i2 < 30; i2++) {
    tmp *= z3 * z3 / (2 * i2 + 1);
    sum2 += tmp;
  }
  return Math.round((0.5 + sum2 / SQRT_2PI$1 * Math.exp(-z3 * z3 / 2)) * 1e4) / 1e4;
}
var standardNormalTable = [];
for (z = 0; z <= 3.09; z += 0.01) {
  standardNormalTable.push(cumulativeDistribution(z));
}
var z;
var SQRT_2PI = Math.sqrt(2 * Math.PI);
var PerceptronModel = function PerceptronModel2() {
  this.weights = [];
  this.bias = 0;
};
PerceptronModel.prototype.predict = function predict(features) {
  if (features.length !== this.weights.length) {
    return null;
  }
  var score2 = 0;
  for (var i2 = 0; i2 < this.weights.length; i2++) {
    score2 += this.weights[i2] * features[i2];
  }
  score2 += this.bias;
  if (score2 > 0) {
    return 1;
  } else {
    return 0;
  }
};
PerceptronModel.prototype.train = function train2(features, label) {
  if (label !== 0 && label !== 1) {
    return null;
  }
  if (features.length !== this.weights.length) {
    this.weights = features.slice();
    this.bias = 1;
  }
  var prediction = this.predict(features);
  if (typeof prediction === "number" && prediction !== label) {
    var gradient = label - prediction;
    for (var i2 = 0; i2 < this.weights.length; i2++) {
      this.weights[i2] += gradient * features[i2];
    }
    this.bias += gradient;
  }
  return this;
};

// node_modules/tinybench/dist/index.js
var e = Object.freeze(() => {
});
var t = globalThis.Event;
var n = class extends t {
  get error() {
    return this.#e;
  }
  get reason() {
    return this.#t;
  }
  get task() {
    return this.#n;
  }
  #e;
  #t;
  #n;
  constructor(e2, t2, n2) {
    super(e2), t2 != null && (this.#n = t2), typeof n2 == "string" ? this.#t = n2 : n2 != null && (this.#e = n2);
  }
};
var r = (e2) => e2 !== null && (typeof e2 == "object" || typeof e2 == "function") && typeof e2.then == "function";
var i = (async () => {
}).constructor;
var a = (e2) => typeof e2 == "function" && e2.constructor === i;
var o = (t2) => {
  if (t2 == null) return false;
  if (a(t2)) return true;
  try {
    let n2 = t2(), i2 = r(n2);
    if (i2) try {
      n2.then(e).catch(e);
    } catch {
    }
    return i2;
  } catch {
    return false;
  }
};
var s = (e2, t2) => {
  if (!e2) {
    let e3 = Error.stackTraceLimit;
    try {
      Error.stackTraceLimit = 0;
      let n2 = Error(t2);
      throw Error.stackTraceLimit = e3, e3 !== 0 && Error.captureStackTrace(n2, s), n2;
    } finally {
      Error.stackTraceLimit = e3;
    }
  }
};
var c = (e2) => {
  switch (typeof e2) {
    case "function":
      return Error(e2.name);
    case "object":
      if (e2 !== null) return e2 instanceof Error ? e2 : Error(e2.message ?? "");
    case "undefined":
      return Error();
    case "string":
      return Error(e2);
    default:
      return Error(String(e2));
  }
};
var l = (e2) => Number(e2) / 1e6;
var u = (e2) => Number(e2) * 1e6;
var d = (e2) => e2;
var f = (e2) => BigInt(Math.round(e2 * 1e6));
function p(e2 = globalThis) {
  let t2 = "unknown", n2 = "unknown";
  if (e2.Bun || e2.process && e2.process.versions?.bun) {
    t2 = "bun";
    let r2 = e2.Bun?.version;
    if (r2) n2 = r2;
    else {
      let t3 = e2.process?.versions?.bun;
      t3 && (n2 = t3);
    }
  } else e2.Deno ? (t2 = "deno", n2 = e2.Deno.version?.deno ?? "unknown") : e2.process && e2.process.release?.name === "node" ? (t2 = "node", n2 = e2.process.versions?.node ?? "unknown") : e2.HermesInternal ? (t2 = "hermes", n2 = e2.HermesInternal.getRuntimeProperties?.()["OSS Release Version"] ?? "unknown") : m(e2) && e2.navigator.userAgent === "Cloudflare-Workers" ? t2 = "workerd" : m(e2) && e2.navigator.userAgent.toLowerCase().startsWith("quickjs-ng") ? (t2 = "quickjs-ng", n2 = e2.navigator.userAgent.split("/")[1] ?? "unknown") : typeof e2.Netlify == "object" ? t2 = "netlify" : typeof e2.EdgeRuntime == "string" ? t2 = "edge-light" : e2.__lagon__ ? t2 = "lagon" : e2.fastly ? t2 = "fastly" : e2.$262 && e2.lockdown && e2.AsyncDisposableStack ? t2 = "moddable" : e2.d8 ? (t2 = "v8", n2 = typeof e2.version == "function" ? e2.version() : "unknown") : e2.inIon && e2.performance && e2.performance.mozMemory ? t2 = "spidermonkey" : typeof e2.$ == "object" && e2.$ !== null && "IsHTMLDDA" in e2.$ ? t2 = "jsc" : e2.window && e2.navigator && (t2 = "browser");
  return {
    runtime: t2,
    version: n2
  };
}
function m(e2 = globalThis) {
  return typeof e2.navigator == "object" && e2.navigator !== null && typeof e2.navigator.userAgent == "string";
}
var { runtime: h, version: g2 } = p();
var _ = globalThis.performance.now.bind(globalThis.performance);
var v = {
  fn: _,
  fromMs: d,
  name: "performanceNow",
  toMs: d
};
var y = globalThis.process?.hrtime?.bigint.bind(globalThis.process?.hrtime) ?? (() => {
  throw Error("hrtime.bigint() is not supported in this JS environment");
});
var x = {
  fn: y,
  fromMs: f,
  name: "hrtimeNow",
  toMs: l
};
var S = globalThis.Bun?.nanoseconds;
var C = S ? {
  fn: S,
  fromMs: u,
  name: "bunNanoseconds",
  toMs: l
} : void 0;
function w(e2) {
  return {
    fn: e2,
    fromMs: d,
    name: "custom",
    toMs: d
  };
}
var T = (e2 = h) => e2 === "bun" ? C : e2 === "deno" ? v : e2 === "node" ? x : v;
var E = (e2) => {
  switch (typeof e2) {
    case "function":
      return w(e2);
    case "string":
      switch (e2) {
        case "auto":
          return T();
        case "bunNanoseconds":
          return C ?? v;
        case "hrtimeNow":
          return x;
        default:
          return v;
      }
    case "object":
      return e2 === null ? v : (s(D(e2), "Invalid Timestamp Provider object"), e2);
    case "undefined":
      return v;
    default:
      throw Error("Invalid value for 'timestampProvider' or 'now'");
  }
};
function D(e2) {
  return typeof e2 == "object" && !!e2 && typeof e2.fn == "function" && typeof e2.name == "string" && typeof e2.toMs == "function" && typeof e2.fromMs == "function";
}
var ee = async (e2) => {
  let { fn: t2, iterations: n2, limit: r2, signal: i2, time: a2 = 0, timestampProvider: o2 = v } = e2, s2 = n2 === 0 ? r2 : Math.max(0, Math.min(r2, n2)), l2 = [], u2 = [], d2 = true, f2 = 0, p2 = Number.isFinite(a2) && a2 > 0, m2 = n2 > 0, h2 = 0, g3 = o2.fn, _2 = m2 ? p2 ? () => d2 && f2++ < n2 && (g3() < h2 || (d2 = false)) : () => d2 && f2++ < n2 : p2 ? () => d2 && (g3() < h2 || (d2 = false)) : () => d2, y2 = (e3) => {
    d2 && u2.push(e3);
  }, b = (e3) => {
    l2.push(c(e3));
  }, x2 = () => d2 = false;
  if (i2) {
    if (i2.aborted) return [];
    i2.addEventListener("abort", x2);
  }
  let S2 = async () => {
    for (; _2(); ) try {
      y2(await t2());
    } catch (e3) {
      d2 = false, b(e3);
      break;
    }
  };
  try {
    p2 && (h2 = g3() + o2.fromMs(a2));
    let e3 = Array.from({ length: s2 }, () => S2());
    await Promise.allSettled(e3);
  } finally {
    i2?.removeEventListener("abort", x2);
  }
  if (l2.length === 0) return u2;
  throw l2.length === 1 ? l2[0] : AggregateError(l2, "Multiple errors occurred during concurrent execution");
};
var O = (e2, t2 = 5, n2 = 2) => {
  if (e2 === Infinity) return "+\u221E";
  if (e2 === -Infinity) return "-\u221E";
  if (e2 !== e2) return "NaN";
  let r2 = Math.abs(e2);
  if (r2 >= 10 ** t2) return e2.toFixed();
  if (r2 < 10 ** (t2 - n2)) return e2.toFixed(n2);
  let i2 = Math.min(Math.max(0, t2 - (Math.floor(Math.log10(r2)) + 1)), n2);
  return e2.toFixed(i2);
};
var te = (e2) => {
  let t2 = e2.result.state;
  return {
    "Task name": e2.name,
    ...t2 === "aborted-with-statistics" || t2 === "completed" ? {
      "Latency avg (ns)": `${O(u(e2.result.latency.mean))} \xB1 ${O(e2.result.latency.rme)}%`,
      "Latency med (ns)": `${O(u(e2.result.latency.p50))} \xB1 ${O(u(e2.result.latency.mad))}`,
      "Throughput avg (ops/s)": `${Math.round(e2.result.throughput.mean).toString()} \xB1 ${O(e2.result.throughput.rme)}%`,
      "Throughput med (ops/s)": `${Math.round(e2.result.throughput.p50).toString()} \xB1 ${Math.round(e2.result.throughput.mad).toString()}`,
      Samples: e2.result.latency.samplesCount
    } : t2 === "errored" ? {
      Error: e2.result.error.message,
      Stack: e2.result.error.stack ?? "N/A"
    } : {
      "Latency avg (ns)": "N/A",
      "Latency med (ns)": "N/A",
      "Throughput avg (ops/s)": "N/A",
      "Throughput med (ops/s)": "N/A",
      Samples: "N/A",
      Remarks: t2
    },
    ...t2 === "aborted-with-statistics" && { Remarks: t2 }
  };
};
var [k, ...A] = [
  0.9999999999998099,
  676.5203681218851,
  -1259.1392167224028,
  771.3234287776531,
  -176.6150291621406,
  12.507343278686905,
  -0.13857109526572012,
  9984369578019572e-21,
  15056327351493116e-23
];
var j = (e2) => {
  let t2 = k;
  for (let n2 = 0; n2 < A.length; n2++) t2 += A[n2] / (e2 + n2);
  return 0.5 * Math.log(2 * Math.PI) + (e2 - 0.5) * Math.log(e2 + 6.5) - (e2 + 6.5) + Math.log(t2);
};
var M = (e2, t2, n2) => {
  let r2 = e2 + t2, i2 = e2 + 1, a2 = e2 - 1, o2 = 1, s2 = 1 - r2 * n2 / i2;
  Math.abs(s2) < 1e-300 && (s2 = 1e-300), s2 = 1 / s2;
  let c2 = s2;
  for (let l2 = 1; l2 <= 300; l2++) {
    let u2 = 2 * l2, d2 = l2 * (t2 - l2) * n2 / ((a2 + u2) * (e2 + u2));
    s2 = 1 + d2 * s2, Math.abs(s2) < 1e-300 && (s2 = 1e-300), o2 = 1 + d2 / o2, Math.abs(o2) < 1e-300 && (o2 = 1e-300), s2 = 1 / s2, c2 *= s2 * o2, d2 = -(e2 + l2) * (r2 + l2) * n2 / ((e2 + u2) * (i2 + u2)), s2 = 1 + d2 * s2, Math.abs(s2) < 1e-300 && (s2 = 1e-300), o2 = 1 + d2 / o2, Math.abs(o2) < 1e-300 && (o2 = 1e-300), s2 = 1 / s2;
    let f2 = s2 * o2;
    if (c2 *= f2, Math.abs(f2 - 1) < 1e-16) break;
  }
  return c2;
};
var N = (e2) => {
  let t2 = e2 > 0 ? e2 : 1, n2 = t2 / 2, r2 = 0.5, i2 = n2 < 12 ? j(n2 + 0.5) - j(n2) : 0.5 * Math.log(n2) - 1 / (8 * n2) + 1 / (192 * n2 ** 3) - 1 / (640 * n2 ** 5) + 0.00118582565234835 / n2 ** 7 - 0.00167977198469943 / n2 ** 9 + 0.00342404392538552 / n2 ** 11, a2 = 0.5 * Math.log(Math.PI), o2 = i2 - 0.5 * Math.log(t2 * Math.PI), s2 = (e3) => {
    let o3 = e3 * e3, s3 = o3 / (t2 + o3), c3 = Math.exp(i2 - a2 + n2 * Math.log1p(-s3) + r2 * Math.log(s3));
    return s3 <= 0.5 ? 1 - c3 * M(r2, n2, s3) / r2 : c3 * M(n2, r2, 1 - s3) / n2;
  }, c2 = (e3) => o2 - (t2 + 1) / 2 * Math.log1p(e3 * e3 / t2), l2 = 1.959963984540054;
  for (let e3 = 0; e3 < 30; e3++) {
    let e4 = Math.exp(-c2(l2)), t3 = 0.5 * (s2(l2) - 0.05) * e4;
    if (!Number.isFinite(t3)) break;
    let n3 = l2 + t3;
    if (!(n3 > 0)) break;
    let r3 = Math.abs(t3);
    if (l2 = n3, r3 <= 4e-16 * e4) break;
  }
  return l2;
};
var P = (e2) => Array.isArray(e2) && e2.length !== 0;
function F(e2) {
  let t2 = e2.length;
  if (t2 < 1024) {
    e2.sort(z2);
    return;
  }
  let n2 = true, r2 = true, i2 = e2[0];
  for (let a3 = 0; a3 < t2; a3++) {
    let t3 = e2[a3];
    if (!Number.isFinite(t3) || Object.is(t3, -0)) {
      e2.sort(z2);
      return;
    }
    (n2 || r2) && (n2 &&= t3 >= i2, r2 &&= t3 <= i2, i2 = t3);
  }
  if (n2) return;
  if (r2) {
    e2.reverse();
    return;
  }
  let a2 = new Float64Array(e2).sort();
  for (let n3 = 0; n3 < t2; n3++) e2[n3] = a2[n3];
}
var I = (e2) => {
  let t2 = e2.length;
  if (t2 === 1) return {
    mean: e2[0],
    vr: 0
  };
  let n2 = 0, r2 = 0, i2 = 0;
  for (; i2 < t2; ) {
    let t3 = e2[i2++], a2 = t3 - n2;
    n2 += a2 / i2, r2 += a2 * (t3 - n2);
  }
  return {
    mean: n2,
    vr: r2 / (t2 - 1)
  };
};
var L = (e2, t2) => {
  let n2 = e2 + t2;
  return Number.isFinite(n2) ? n2 / 2 : e2 / 2 + t2 / 2;
};
var R = (e2, t2) => {
  let n2 = (e2.length - 1) * t2, r2 = Math.floor(n2), i2 = e2[r2];
  if (n2 === r2) return i2;
  let a2 = e2[r2 + 1];
  if (i2 === a2) return i2;
  let o2 = n2 - r2;
  if (o2 === 0.5) return L(i2, a2);
  let s2 = a2 - i2;
  return Number.isFinite(s2) ? i2 + o2 * s2 : (1 - o2) * i2 + o2 * a2;
};
var z2 = (e2, t2) => e2 - t2;
var B = (e2, t2) => {
  let n2 = 0, r2 = e2.length, i2 = 0;
  for (; i2 < r2; ) n2 += (Math.abs(e2[i2++] - t2) - n2) / i2;
  return n2;
};
function V(e2, t2) {
  let n2 = e2.length;
  if (n2 === 1) return 0;
  let r2 = n2 >> 1, i2 = n2 + 1 >> 1, a2 = 0, o2 = r2, s2, c2, l2, u2, d2, f2;
  for (; a2 <= o2; ) {
    if (s2 = a2 + o2 >> 1, c2 = i2 - s2, l2 = s2 === 0 ? -Infinity : t2 - e2[r2 - s2], d2 = s2 === r2 ? Infinity : t2 - e2[r2 - s2 - 1], u2 = c2 === 0 ? -Infinity : e2[r2 + c2 - 1] - t2, f2 = c2 === n2 - r2 ? Infinity : e2[r2 + c2] - t2, l2 <= f2 && u2 <= d2) return n2 & 1 ? Math.max(l2, u2) : L(Math.max(l2, u2), Math.min(d2, f2));
    l2 > f2 ? o2 = s2 - 1 : a2 = s2 + 1;
  }
  return 0;
}
var H = (e2) => V(e2, R(e2, 0.5));
function U(e2, t2 = false) {
  let { mean: n2, vr: r2 } = I(e2), i2 = Math.sqrt(r2), a2 = i2 / Math.sqrt(e2.length), o2 = e2.length - 1, s2 = N(o2), c2 = a2 * s2, l2 = n2 === 0 ? Infinity : c2 / Math.abs(n2) * 100, u2 = R(e2, 0.5);
  return {
    aad: B(e2, n2),
    critical: s2,
    df: o2,
    mad: V(e2, u2),
    max: e2[o2],
    mean: n2,
    min: e2[0],
    moe: c2,
    p50: u2,
    p75: R(e2, 0.75),
    p99: R(e2, 0.99),
    p995: R(e2, 0.995),
    p999: R(e2, 0.999),
    rme: l2,
    samples: t2 ? e2 : void 0,
    samplesCount: e2.length,
    sd: i2,
    sem: a2,
    variance: r2
  };
}
var W = (e2, t2) => {
  let n2 = e2.length;
  if (n2 < 10) return;
  let r2 = 0;
  for (let t3 of e2) t3 === 0 && r2++;
  if (r2 * 2 > n2) return "zero-dominated";
  let i2 = Math.max(3, Math.min(10, Math.floor(n2 / 1e3))), a2 = 1;
  for (let t3 = 1; t3 < n2 && !(e2[t3] !== e2[t3 - 1] && (a2++, a2 >= i2)); t3++) ;
  if (a2 < i2) return "low-distinct";
  if (n2 > 100 && t2 === 0) return "zero-mad";
};
var K = (e2) => {
  let t2;
  for (let n2 = 0; n2 < e2.length; n2++) {
    let r2 = e2[n2];
    if (!(r2 <= 0) && (t2 ??= r2, e2[n2 + 1] === r2)) return r2;
  }
  return t2;
};
var q = (e2, t2 = {}) => {
  let { estimator: n2 = "median", pairs: r2 = 1024, warmupPairs: i2 = 64 } = t2, { fn: a2, toMs: o2 } = e2;
  if (!Number.isInteger(r2) || r2 <= 0) return 0;
  if (Number.isInteger(i2) && i2 > 0) for (let e3 = 0; e3 < i2; e3++) {
    let e4 = a2();
    o2(a2() - e4);
  }
  let s2 = [];
  for (let e3 = 0; e3 < r2; e3++) {
    let e4 = a2(), t3 = o2(a2() - e4);
    t3 > 0 && s2.push(t3);
  }
  return s2.length * 2 < r2 ? 0 : (s2.sort(z2), n2 === "min" ? s2[0] : R(s2, n2 === "p05" ? 0.05 : 0.5));
};
var ne = [
  "afterAll",
  "beforeAll",
  "beforeEach",
  "afterEach"
];
var re = ["not-started", "started"];
var J = { state: "not-started" };
var Y = { state: "aborted" };
var ie = { state: "started" };
var X = class extends EventTarget {
  get detectedResolution() {
    return this.#r;
  }
  get name() {
    return this.#o;
  }
  get result() {
    return {
      ...this.#s,
      runtime: this.#n.runtime,
      runtimeVersion: this.#n.runtimeVersion,
      timestampProviderName: this.#n.timestampProvider.name
    };
  }
  get runs() {
    return this.#l;
  }
  #e = false;
  #t;
  #n;
  #r = void 0;
  #i;
  #a;
  #o;
  #s = J;
  #c;
  #l = 0;
  #u;
  #d;
  #f;
  #p;
  constructor(e2, t2, n2, r2 = {}) {
    super(), this.#n = e2, this.#o = t2, this.#i = n2, this.#a = r2, this.#t = r2.async ?? o(n2), this.#u = r2.signal, this.#c = r2.retainSamples ?? e2.retainSamples, this.#f = e2.timestampProvider, this.#d = e2.timestampProvider.fn, this.#p = e2.timestampProvider.toMs;
    for (let e3 of ne) this.#a[e3] != null && s(typeof this.#a[e3] == "function", `'${e3}' must be a function if provided`);
    this.reset(false), this.#u && (this.#u.aborted ? this.#v() : this.#u.addEventListener("abort", this.#v.bind(this), { once: true })), this.#n.signal && (this.#n.signal.aborted ? this.#v() : this.#n.signal.addEventListener("abort", this.#v.bind(this), { once: true }));
  }
  reset(e2 = true) {
    this.#l = 0, this.#r = void 0, this.#s = this.#e ? Y : J, e2 && this.dispatchEvent(new n("reset", this));
  }
  async run() {
    if (this.#s.state !== "not-started") return this;
    this.#s = { state: "started" }, this.dispatchEvent(new n("start", this)), await this.#n.setup(this, "run");
    let { error: e2, overriddenIndices: t2, samples: r2 } = await this.#m("run", this.#n.time, this.#n.iterations);
    return await this.#n.teardown(this, "run"), this.#b({
      error: e2,
      latencySamples: r2,
      overriddenIndices: t2
    }), this;
  }
  runSync() {
    if (this.#s.state !== "not-started") return this;
    s(this.#n.concurrency === null, "Cannot use `concurrency` option when using `runSync`"), this.#s = ie, this.dispatchEvent(new n("start", this));
    let e2 = this.#n.setup(this, "run");
    s(!r(e2), "`setup` function must be sync when using `runSync()`");
    let { error: t2, overriddenIndices: i2, samples: a2 } = this.#h("run", this.#n.time, this.#n.iterations), o2 = this.#n.teardown(this, "run");
    return s(!r(o2), "`teardown` function must be sync when using `runSync()`"), this.#b({
      error: t2,
      latencySamples: a2,
      overriddenIndices: i2
    }), this;
  }
  async warmup() {
    if (this.#s.state !== "not-started") return;
    this.dispatchEvent(new n("warmup", this)), await this.#n.setup(this, "warmup");
    let { error: e2 } = await this.#m("warmup", this.#n.warmupTime, this.#n.warmupIterations);
    await this.#n.teardown(this, "warmup"), this.#y(e2);
  }
  warmupSync() {
    if (this.#s.state !== "not-started") return;
    this.dispatchEvent(new n("warmup", this));
    let e2 = this.#n.setup(this, "warmup");
    s(!r(e2), "`setup` function must be sync when using `runSync()`");
    let { error: t2 } = this.#h("warmup", this.#n.warmupTime, this.#n.warmupIterations), i2 = this.#n.teardown(this, "warmup");
    s(!r(i2), "`teardown` function must be sync when using `runSync()`"), this.#y(t2);
  }
  async #m(e2, t2, n2) {
    try {
      this.#a.beforeAll && await this.#a.beforeAll.call(this, e2);
      let r2 = this.#n.concurrency !== "task", i2 = 0, a2 = [], o2 = /* @__PURE__ */ new Set(), s2 = async () => {
        if (!this.#e) try {
          this.#a.beforeEach != null && await this.#a.beforeEach.call(this, e2);
          let { iterationCost: t3, overridden: n3, taskTime: s3 } = this.#t ? await this.#g(r2) : this.#_(r2), c2 = a2.push(s3) - 1;
          n3 && o2.add(c2), r2 && (i2 += t3 ?? s3);
        } finally {
          this.#a.afterEach != null && await this.#a.afterEach.call(this, e2);
        }
      };
      if (!r2) await ee({
        fn: s2,
        iterations: n2,
        limit: Math.max(1, Math.floor(this.#n.threshold)),
        signal: this.#u ?? this.#n.signal,
        time: t2,
        timestampProvider: this.#f
      }), this.#l = a2.length;
      else for (; (i2 < t2 || a2.length < n2) && !this.#e; ) await s2();
      return this.#a.afterAll != null && await this.#a.afterAll.call(this, e2), P(a2) ? {
        overriddenIndices: o2,
        samples: a2
      } : {};
    } catch (e3) {
      return { error: c(e3) };
    }
  }
  #h(e2, t2, n2) {
    try {
      if (this.#a.beforeAll) {
        let t3 = this.#a.beforeAll.call(this, e2);
        s(!r(t3), "`beforeAll` function must be sync when using `runSync()`");
      }
      let i2 = 0, a2 = [], o2 = /* @__PURE__ */ new Set(), c2 = () => {
        if (!this.#e) try {
          if (this.#a.beforeEach) {
            let t4 = this.#a.beforeEach.call(this, e2);
            s(!r(t4), "`beforeEach` function must be sync when using `runSync()`");
          }
          let { iterationCost: t3, overridden: n3, taskTime: c3 } = this.#_(true), l2 = a2.push(c3) - 1;
          n3 && o2.add(l2), i2 += t3 ?? c3;
        } finally {
          if (this.#a.afterEach) {
            let t3 = this.#a.afterEach.call(this, e2);
            s(!r(t3), "`afterEach` function must be sync when using `runSync()`");
          }
        }
      };
      for (; (i2 < t2 || a2.length < n2) && !this.#e; ) c2();
      if (this.#a.afterAll) {
        let t3 = this.#a.afterAll.call(this, e2);
        s(!r(t3), "`afterAll` function must be sync when using `runSync()`");
      }
      return P(a2) ? {
        overriddenIndices: o2,
        samples: a2
      } : {};
    } catch (e3) {
      return { error: c(e3) };
    }
  }
  async #g(e2) {
    let t2 = this.#d(), n2 = await this.#i.call(this), r2 = this.#p(this.#d() - t2), i2 = e2 ? Q(n2) : void 0, a2 = Z(n2);
    return a2 === void 0 ? {
      iterationCost: i2,
      overridden: false,
      taskTime: r2
    } : {
      iterationCost: i2,
      overridden: true,
      taskTime: a2
    };
  }
  #_(e2) {
    let t2 = this.#d(), n2 = this.#i.call(this), i2 = this.#p(this.#d() - t2);
    s(!r(n2), "task function must be sync when using `runSync()`");
    let a2 = e2 ? Q(n2) : void 0, o2 = Z(n2);
    return o2 === void 0 ? {
      iterationCost: a2,
      overridden: false,
      taskTime: i2
    } : {
      iterationCost: a2,
      overridden: true,
      taskTime: o2
    };
  }
  #v() {
    if (this.#e = true, re.includes(this.#s.state)) {
      this.#s = Y;
      let e2 = new n("abort", this);
      this.dispatchEvent(e2), this.#n.dispatchEvent(e2);
    }
  }
  #y(e2) {
    if (e2) {
      this.#s = {
        state: "errored",
        error: e2
      };
      let t2 = new n("error", this, e2);
      if (this.dispatchEvent(t2), this.#n.dispatchEvent(t2), this.#n.throws) throw e2;
    }
  }
  #b({ error: e2, latencySamples: t2, overriddenIndices: r2 }) {
    if (P(t2)) {
      this.#l = t2.length;
      let e3 = this.#n.timerOverhead;
      if (e3 !== void 0 && e3 > 0) for (let n2 = 0; n2 < t2.length; n2++) r2?.has(n2) || (t2[n2] = Math.max(0, t2[n2] - e3));
      let i3 = (r2?.size ?? 0) > 0, a2 = i3 ? t2.filter((e4, t3) => !r2?.has(t3)) : t2;
      F(t2);
      let o2 = U(t2, this.#c), s2;
      i3 ? P(a2) ? (F(a2), this.#r = K(a2), s2 = W(a2, H(a2))) : this.#r = void 0 : (this.#r = K(t2), s2 = W(t2, o2.mad));
      let c2 = o2.mean, l2 = 0, u2 = [];
      for (let e4 of t2) e4 === 0 ? u2.push(c2 === 0 ? 0 : 1e3 / c2) : (l2 += e4, u2.push(1e3 / e4));
      F(u2);
      let d2 = U(u2, this.#c);
      if (this.#s = {
        state: this.#e ? "aborted-with-statistics" : "completed",
        latency: o2,
        period: l2 / this.runs,
        throughput: d2,
        totalTime: l2
      }, s2 !== void 0) {
        let e4 = new n("warning", this, s2);
        this.dispatchEvent(e4), this.#n.dispatchEvent(e4);
      }
    } else this.#e && (this.#s = Y);
    if (e2) {
      this.#s = {
        state: "errored",
        error: e2
      };
      let t3 = new n("error", this, e2);
      if (this.dispatchEvent(t3), this.#n.dispatchEvent(t3), this.#n.throws) throw e2;
    }
    let i2 = new n("cycle", this);
    this.dispatchEvent(i2), this.#n.dispatchEvent(i2), this.dispatchEvent(new n("complete", this));
  }
};
function Z(e2) {
  if (typeof e2 != "object" || !e2) return;
  let t2 = e2;
  if (!("overriddenDuration" in t2)) return;
  let n2 = t2.overriddenDuration;
  return typeof n2 == "number" && Number.isFinite(n2) && n2 >= 0 ? n2 : void 0;
}
function Q(e2) {
  if (typeof e2 != "object" || !e2) return;
  let t2 = e2;
  try {
    if (!("overriddenIterationCost" in t2)) return;
    let e3 = t2.overriddenIterationCost;
    return typeof e3 == "number" && Number.isFinite(e3) && e3 >= 0 ? e3 : void 0;
  } catch {
    return;
  }
}
var $ = '`subtractTimerOverhead` cannot be used with `concurrency: "task"` \u2014 set `concurrency` to `null` or `"bench"`, or disable `subtractTimerOverhead`';
var ae = class extends EventTarget {
  concurrency;
  iterations;
  name;
  now;
  retainSamples;
  runtime;
  runtimeVersion;
  setup;
  signal;
  subtractTimerOverhead;
  teardown;
  threshold;
  throws;
  time;
  timerOverhead;
  timestampProvider;
  warmup;
  warmupIterations;
  warmupTime;
  get results() {
    return this.tasks.map((e2) => e2.result);
  }
  get tasks() {
    return [...this.#e.values()];
  }
  #e = /* @__PURE__ */ new Map();
  constructor(t2 = {}) {
    super();
    let { name: r2, ...i2 } = t2;
    this.name = r2, this.runtime = h, this.runtimeVersion = g2, this.concurrency = i2.concurrency ?? null, this.threshold = i2.threshold ?? Infinity, this.time = i2.time ?? 1e3, this.iterations = i2.iterations ?? 64, s(i2.now === void 0 || i2.timestampProvider === void 0, "Cannot set both `now` and `timestampProvider` options"), this.timestampProvider = E(i2.now ?? i2.timestampProvider), this.now = () => this.timestampProvider.toMs(this.timestampProvider.fn()), this.warmup = i2.warmup ?? true, this.warmupIterations = i2.warmupIterations ?? 16, this.warmupTime = i2.warmupTime ?? 250, this.setup = i2.setup ?? e, this.teardown = i2.teardown ?? e, this.throws = i2.throws ?? false, i2.signal != null && (this.signal = i2.signal), this.retainSamples = i2.retainSamples === true, this.subtractTimerOverhead = i2.subtractTimerOverhead === true, s(!(this.subtractTimerOverhead && this.concurrency === "task"), $);
    let a2 = this.subtractTimerOverhead ? q(this.timestampProvider) : void 0;
    a2 != null && (this.timerOverhead = a2), this.signal && this.signal.addEventListener("abort", () => {
      this.dispatchEvent(new n("abort"));
    }, { once: true });
  }
  add(e2, t2, r2 = {}) {
    if (this.#e.has(e2)) throw Error(`Task "${e2}" already exists`);
    {
      let i2 = new X(this, e2, t2, r2);
      this.#e.set(e2, i2), this.dispatchEvent(new n("add", i2));
    }
    return this;
  }
  getTask(e2) {
    return this.#e.get(e2);
  }
  remove(e2) {
    let t2 = this.getTask(e2);
    return t2 && (this.#e.delete(e2), this.dispatchEvent(new n("remove", t2))), this;
  }
  reset() {
    for (let e2 of this.#e.values()) e2.reset();
    this.dispatchEvent(new n("reset"));
  }
  async run() {
    s(!(this.subtractTimerOverhead && this.concurrency === "task"), $), this.warmup && await this.#t(), this.dispatchEvent(new n("start"));
    let e2 = [];
    if (this.concurrency === "bench") {
      let t2 = [];
      for (let e3 of this.#e.values()) t2.push(e3.run());
      e2 = await Promise.all(t2);
    } else for (let t2 of this.#e.values()) e2.push(await t2.run());
    return this.dispatchEvent(new n("complete")), e2;
  }
  runSync() {
    s(this.concurrency === null, "Cannot use `concurrency` option when using `runSync`"), this.warmup && this.#n();
    let e2 = [];
    this.dispatchEvent(new n("start"));
    for (let t2 of this.#e.values()) e2.push(t2.runSync());
    return this.dispatchEvent(new n("complete")), e2;
  }
  table(e2 = te) {
    return this.tasks.map(e2);
  }
  async #t() {
    if (this.dispatchEvent(new n("warmup")), this.concurrency === "bench") {
      let e2 = [];
      for (let t2 of this.#e.values()) e2.push(t2.warmup());
      await Promise.all(e2);
    } else for (let e2 of this.#e.values()) await e2.warmup();
  }
  #n() {
    this.dispatchEvent(new n("warmup"));
    for (let e2 of this.#e.values()) e2.warmupSync();
  }
};

// src/util/errors.ts
function messageOf(error) {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : JSON.stringify(error) ?? String(error);
}

// src/checkout/reuse.ts
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from "node:fs";
import path from "node:path";
var LOCKFILES = ["npm-shrinkwrap.json", "package-lock.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock", "bun.lockb"];
var SETTINGS_FILES = [".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs"];
function filesIn(root) {
  return (file) => existsSync(path.join(root, file)) ? readFileSync(path.join(root, file)) : void 0;
}
var INSTALL_FILES = ["package.json", ...LOCKFILES, ...SETTINGS_FILES];

// src/checkout/install.ts
function scriptRunner(read2) {
  const named = packageManager(read2)?.name;
  if (named) return named === "npm" ? void 0 : named;
  if (read2("pnpm-lock.yaml") !== void 0) return "pnpm";
  if (read2("yarn.lock") !== void 0) return "yarn";
  return read2("bun.lock") !== void 0 || read2("bun.lockb") !== void 0 ? "bun" : void 0;
}
function packageManager(read2) {
  const field = manifest(read2)?.packageManager;
  const match = typeof field === "string" ? /^(npm|pnpm|yarn|bun)@(\d[^+\s]*)/.exec(field) : null;
  return match ? { name: match[1], version: match[2] } : void 0;
}
function manifest(read2) {
  try {
    return JSON.parse(read2("package.json")?.toString("utf8") ?? "");
  } catch {
    return void 0;
  }
}

// src/measure/micro/alternate.ts
import { readFileSync as readFileSync2 } from "node:fs";
import path2 from "node:path";
import { pathToFileURL } from "node:url";

// src/measure/micro/harness/packages.ts
var HARNESS_PACKAGES = ["benchmark", "tinybench", "mitata", "vitest", "cronometro"];
var GRAPH_PARAMETER = "benchgate-graph";

// src/measure/micro/alternate.ts
var SideFailure = class _SideFailure extends Error {
  constructor(revision, cause, root, context) {
    super(context ? `${context}: ${describeThrown(cause, root)}` : describeThrown(cause, root));
    this.revision = revision;
  }
  revision;
  /** A failure told by another thread: its message as it was written there. */
  static told(revision, message) {
    const failure = new _SideFailure(revision, void 0);
    failure.message = message;
    return failure;
  }
};
function describeThrown(thrown, root) {
  if (!(thrown instanceof Error)) return `threw ${messageOf(thrown)}`;
  const head = withinProject(withoutGraph(`${thrown.name}: ${thrown.message}`), root);
  if (!root || !thrown.stack) return head;
  const prefix = pathToFileURL(root).href + "/";
  const frame = thrown.stack.split("\n").map((line) => line.trim()).find((line) => line.startsWith("at ") && (line.includes(prefix) || line.includes(root + "/")) && !line.includes("/node_modules/"));
  return frame ? `${head}
    ${withoutGraph(frame.replace(prefix, "").replace(root + "/", ""))}` : head;
}
function withinProject(message, root) {
  if (!root) return message;
  const text = message.split(`${pathToFileURL(root).href}/`).join("").split(`${root}/`).join("");
  return /Cannot find (module|package) '(?:[^'\s]*\/node_modules\/(?:@[^/'\s]+\/)?[^/'\s]+\/)?(dist|build|lib|out|\.build)\//.test(text) ? `${text} (the build's output is missing at this revision: set build in benchgate.yml, ${buildExample(root)})` : text;
}
function buildExample(root) {
  let manifest2;
  try {
    manifest2 = JSON.parse(readFileSync2(path2.join(root, "package.json"), "utf8"));
  } catch {
  }
  const scripts = typeof manifest2 === "object" && manifest2 !== null ? manifest2.scripts : void 0;
  if (typeof scripts !== "object" || scripts === null || typeof scripts.build !== "string")
    return "e.g. build: npm run build";
  const manager = scriptRunner(filesIn(root));
  const run = manager === "bun" ? "bun run build" : manager ? `corepack ${manager} run build` : "npm run build";
  return `e.g. build: ${run} (its build script)`;
}
function withoutGraph(location) {
  return location.replace(new RegExp(`[?&]${GRAPH_PARAMETER}=\\d+`, "g"), "");
}
var LocalSide = class {
  prepared;
  constructor(task) {
    this.prepared = { ...task, isAsync: false, callMs: 0 };
  }
  get revision() {
    return this.prepared.revision;
  }
  get hooked() {
    return Boolean(this.prepared.opts.beforeEach || this.prepared.opts.afterEach);
  }
  async warm() {
    await runHook(this.prepared, "beforeAll");
    await probe(this.prepared);
    return this.prepared.callMs;
  }
  setBatch(batch) {
    this.prepared.batchFn = batchTask(this.prepared, batch);
    return Promise.resolve();
  }
  block(iterations) {
    return runBlock(this.prepared, iterations);
  }
  async finish() {
    await runHook(this.prepared, "afterAll").catch(() => void 0);
  }
  /**
   * Its beforeAll hook and one call, then its loop, reading no clock (counts mode, measure/counts/task.ts: a rerun
   * makes the same calls). Throws a SideFailure.
   */
  async countingLoop() {
    await runHook(this.prepared, "beforeAll");
    try {
      return await firstCall(this.prepared);
    } catch (error) {
      throw error instanceof SideFailure ? error : new SideFailure(this.prepared.revision, error, this.prepared.root);
    }
  }
  /** `calls` calls of its warmed loop, untimed (a profiled run). */
  async run(calls) {
    await this.prepared.loop(calls);
  }
};
async function measureTask(id, sides, settings, fixedBatch, beat2) {
  let batch = fixedBatch ?? 1;
  let blocks = 0;
  return withWarmSides(
    sides,
    beat2,
    async (callMs) => {
      const fastest = Math.min(...callMs);
      if (fixedBatch === void 0)
        batch = sides.some((side) => side.hooked) ? 1 : Math.max(1, Math.ceil(settings.minSampleMs / Math.max(fastest, 1e-6)));
      for (const side of sides) await side.setBatch(batch);
      const meanCallMs = callMs.reduce((sum2, ms) => sum2 + ms, 0) / callMs.length;
      const iterations = Math.min(1e4, Math.max(2, Math.round(settings.blockMs / (batch * Math.max(meanCallMs, 1e-6)))));
      const totals = sides.map(() => ({ runs: 0, periods: [] }));
      const runBlocks = async (k2, timed) => {
        const length = jitter(iterations);
        const periods = /* @__PURE__ */ new Map();
        for (const at of order(sides.length, k2)) {
          const figures2 = await sides[at].block(length);
          periods.set(sides[at].revision, figures2.period);
          if (timed) {
            totals[at].runs += figures2.runs;
            totals[at].periods.push(figures2.period);
          }
        }
        return periods;
      };
      for (let k2 = 0; k2 < settings.warmupBlocks; k2++) await runBlocks(k2, false);
      const logRatios = [];
      const started = performance.now();
      const taskTime = sides.length === 2 ? settings.taskTimeMs : settings.taskTimeMs / 2;
      while (blocks < settings.minBlocks || performance.now() - started < taskTime) {
        const periods = await runBlocks(blocks, true);
        blocks++;
        if (sides.length === 2) logRatios.push(Math.log(periods.get("base") / periods.get("head")));
        beat2();
      }
      const measureMs = performance.now() - started;
      const outcome = { id, batch, blocks, measureMs };
      sides.forEach((side, at) => outcome[side.revision] = figures(totals[at], batch));
      if (logRatios.length) outcome.logRatio = median(logRatios);
      if (logRatios.length >= 3) outcome.blockVariance = blockVariance(logRatios);
      return outcome;
    },
    (failure) => ({ id, batch, blocks, error: { revision: failure.revision, message: failure.message } })
  );
}
async function withWarmSides(sides, beat2, work, onFailure) {
  try {
    const callMs = [];
    for (const side of sides) {
      beat2(side.revision);
      callMs.push(await side.warm());
    }
    return await work(callMs);
  } catch (error) {
    if (error instanceof SideFailure) return onFailure(error);
    throw error;
  } finally {
    for (const side of sides) await side.finish();
  }
}
async function runTaskFor(tasks, durationMs, window, beat2, blockMs = 10) {
  const sides = tasks.map((task) => new LocalSide(task));
  return withWarmSides(
    sides,
    beat2,
    async (callMs) => {
      const batches = callMs.map((ms) => Math.max(1, Math.round(1 / Math.max(ms, 1e-6))));
      const calls = {};
      const spans = [];
      await window.open();
      const started = performance.now();
      for (let k2 = 0; performance.now() - started < durationMs; k2++) {
        for (const at of order(sides.length, k2)) {
          const side = sides[at];
          const length = sides.length > 1 ? jitter(100) / 100 * blockMs : durationMs;
          const startUs = profileClockUs();
          const blockStarted = performance.now();
          let made = 0;
          do {
            await side.run(batches[at]);
            made += batches[at];
            beat2();
          } while (performance.now() - blockStarted < length && performance.now() - started < durationMs);
          spans.push({ label: side.revision, startUs, endUs: profileClockUs() });
          calls[side.revision] = (calls[side.revision] ?? 0) + made;
        }
      }
      await window.close({ calls, spans });
      return { calls, spans };
    },
    (failure) => ({ error: failure.message })
  );
}
function jitter(iterations) {
  return Math.max(2, Math.round(iterations * (0.5 + Math.random())));
}
function order(count, k2) {
  const declared = [...Array(count).keys()];
  return k2 % 2 === 0 ? declared : declared.reverse();
}
async function runBlock(side, iterations) {
  const bench = new ae({ time: 0, iterations, warmup: false, throws: false, timestampProvider: "hrtimeNow" });
  bench.add(side.revision, side.batchFn, { async: side.isAsync, beforeEach: side.opts.beforeEach, afterEach: side.opts.afterEach });
  if (side.isAsync) await bench.run();
  else bench.runSync();
  const task = bench.getTask(side.revision);
  const result = task.result;
  if (result.state === "errored") throw new SideFailure(side.revision, result.error, side.root);
  if (result.state !== "completed") throw new SideFailure(side.revision, `tinybench ended the block in state '${result.state}'`);
  return { period: result.period, runs: task.runs, totalTime: result.totalTime };
}
function blockVariance(logRatios) {
  const mad = 1.4826 * medianAbsoluteDeviation(logRatios);
  return mad > 0 ? mad * mad : sampleVariance(logRatios);
}
function figures(total, batch) {
  const calls = total.runs * batch;
  const period = total.periods.length ? median(total.periods) : Number.NaN;
  return { calls, opsPerSec: period > 0 ? batch / period * 1e3 : Number.POSITIVE_INFINITY };
}
async function probe(side) {
  try {
    const loop = await firstCall(side);
    let count = 1;
    for (; ; count *= 2) {
      const start = performance.now();
      await loop(count);
      if (performance.now() - start >= 2 || count >= 1 << 22) break;
    }
    let best = Number.POSITIVE_INFINITY;
    for (let i2 = 0; i2 < 8; i2++) {
      const start = performance.now();
      await loop(count);
      best = Math.min(best, (performance.now() - start) / count);
    }
    side.callMs = best;
  } catch (error) {
    throw error instanceof SideFailure ? error : new SideFailure(side.revision, error, side.root);
  }
}
async function firstCall(side) {
  await runHook(side, "beforeEach");
  const first = side.fn();
  side.isAsync = isThenable(first);
  if (side.isAsync) await first;
  await runHook(side, "afterEach");
  const hooked = Boolean(side.opts.beforeEach || side.opts.afterEach);
  side.loop = hooked ? hookedLoop(side) : compileLoop(side.fn, side.isAsync);
  return side.loop;
}
function hookedLoop(side) {
  return async (n2) => {
    for (let i2 = 0; i2 < n2; i2++) {
      await runHook(side, "beforeEach");
      await side.fn();
      await runHook(side, "afterEach");
    }
  };
}
async function runHook(side, hook) {
  const fn = side.opts[hook];
  if (!fn) return;
  try {
    await fn.call(void 0);
  } catch (error) {
    throw new SideFailure(side.revision, error, side.root, `${hook} hook`);
  }
}
function isThenable(value) {
  return typeof value === "object" && value !== null && typeof value.then === "function";
}
function compileLoop(fn, isAsync) {
  const body = isAsync ? "return async function benchgateLoop(n) { let last; for (let i = 0; i < n; i++) last = await fn(); sink.value = last; }" : "return function benchgateLoop(n) { let last; for (let i = 0; i < n; i++) last = fn(); sink.value = last; }";
  return new Function("fn", "sink", body)(fn, sink);
}
function batchTask(side, batch) {
  if (side.opts.beforeEach || side.opts.afterEach) return side.fn;
  return new Function("loop", "n", "return function benchgateBatch() { return loop(n); }")(side.loop, batch);
}
var sink = { value: void 0 };

// src/measure/micro/capture-setup.ts
import * as nodeModule from "node:module";

// src/measure/micro/harness/capture.ts
import { fileURLToPath as fileURLToPath2 } from "node:url";

// src/measure/micro/harness/patched.ts
var PatchedHarness = class _PatchedHarness {
  constructor(capture) {
    this.capture = capture;
  }
  capture;
  /** Every class patched, whichever harness reached it: one set for the process, as its capture is one. */
  static patched = /* @__PURE__ */ new WeakSet();
  imported(resolved, real) {
    this.capture.record(this.name, resolved);
    const target = this.classIn(real);
    if (typeof target !== "function" || _PatchedHarness.patched.has(target)) return;
    _PatchedHarness.patched.add(target);
    this.patch(target, () => this.capture.record(this.name, resolved));
  }
  required(resolved, load) {
    const loaded = load();
    this.imported(resolved, this.asImported(loaded));
    return loaded;
  }
};

// src/measure/micro/harness/benchmarkjs.ts
var BenchmarkjsHarness = class extends PatchedHarness {
  name = "benchmark.js";
  package = "benchmark";
  classIn(namespace) {
    return namespace.default;
  }
  asImported(loaded) {
    return { default: loaded };
  }
  patch(Benchmark, used) {
    const collect2 = (suite) => {
      used();
      for (let i2 = 0; i2 < suite.length; i2++) this.addBenchmark(suite[i2], typeof suite.name === "string" && suite.name ? [suite.name] : []);
      try {
        suite.emit("complete");
      } catch (error) {
        this.capture.lateError(error);
      }
    };
    const collectOne = (benchmark) => {
      used();
      this.addBenchmark(benchmark, []);
    };
    Benchmark.Suite.prototype.run = function() {
      collect2(this);
      return this;
    };
    Benchmark.prototype.run = function() {
      collectOne(this);
      return this;
    };
  }
  addBenchmark(benchmark, suites) {
    const { fn, setup, teardown } = benchmark;
    const name = benchmark.name ?? `benchmark ${benchmark.id ?? ""}`.trim();
    if (typeof fn !== "function")
      throw new Error(`benchmark.js task '${name}' gives its code as a string; benchgate captures functions only: pass a function`);
    for (const [hook, value] of [
      ["setup", setup],
      ["teardown", teardown]
    ])
      if (typeof value === "string" && value.trim())
        throw new Error(`benchmark.js task '${name}' gives its ${hook} as a string; benchgate captures functions only: pass a function`);
    const opts = {};
    if (typeof setup === "function") opts.beforeAll = () => setup.call(benchmark);
    if (typeof teardown === "function") opts.afterAll = () => teardown.call(benchmark);
    const task = benchmark.defer ? () => new Promise((resolve, reject) => {
      try {
        fn.call(benchmark, { benchmark, resolve: () => resolve(), cycles: 0, elapsed: 0, timeStamp: 0 });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    }) : fn;
    this.capture.add({ suites, name, fn: task, opts });
  }
};

// src/measure/micro/harness/cronometro.ts
import { inspect } from "node:util";
var CronometroHarness = class {
  constructor(capture) {
    this.capture = capture;
  }
  capture;
  name = "cronometro";
  package = "cronometro";
  /** `cronometro` and the default export, ours; its other exports (printResults, Tracker, ...) stay the revision's own. */
  imported(resolved) {
    this.capture.record("cronometro", resolved);
    const cronometro = (tests, options, callback) => {
      this.capture.record("cronometro", resolved);
      for (const task of testsOf(tests)) this.capture.add(task);
      this.capture.stir();
      const done = typeof options === "function" ? options : callback;
      if (typeof done !== "function") return Promise.resolve({});
      process.nextTick(() => done(null, {}));
      return void 0;
    };
    return { cronometro, default: cronometro };
  }
  /**
   * A `require()` of it: 0.x is CommonJS, its `module.exports` the function itself with the other exports on it
   * (`require('cronometro')(tests)`); from 1.x an ES module, whose require (Node's require(esm)) answers its namespace.
   */
  required(resolved, load) {
    const loaded = load();
    const ours = this.imported(resolved);
    if (typeof loaded === "function") return Object.assign(ours.cronometro, loaded, ours);
    return { ...loaded, ...ours };
  }
};
function testsOf(tests) {
  if (typeof tests !== "object" || tests === null)
    throw new Error(`cronometro was given ${tests === null ? "null" : typeof tests}, not an object of tests by name`);
  return Object.entries(tests).filter(([, test]) => test?.skip !== true).map(([name, test]) => {
    if (typeof test === "function") return { suites: [], name, fn: asTask(test), opts: {} };
    if (typeof test !== "object" || test === null)
      return failing(
        name,
        `cronometro test '${name}' is ${test === null ? "null" : typeof test}, not a function or { test, before, after }`
      );
    const { test: fn, before, after } = test;
    if (typeof fn !== "function") return failing(name, `cronometro test '${name}' has no test function (its test is ${typeof fn})`);
    const opts = {};
    if (typeof before === "function") opts.beforeAll = () => settled(before);
    if (typeof after === "function") opts.afterAll = () => settled(after);
    return { suites: [], name, fn: asTask(fn), opts };
  });
}
function failing(name, message) {
  return {
    suites: [],
    name,
    fn: () => {
      throw new Error(message);
    },
    opts: {}
  };
}
function asTask(test) {
  if (test.length === 0) return test;
  return () => settled(test);
}
function settled(hook) {
  return new Promise((resolve, reject) => {
    const returned = hook(
      (error) => error ? reject(error instanceof Error ? error : new Error(`it called back with ${inspect(error)}`)) : resolve()
    );
    if (typeof returned?.then === "function")
      returned.then(() => resolve(), reject);
    else if (hook.length === 0) resolve();
  });
}

// src/measure/micro/harness/graphs.ts
import Module from "node:module";
import path3 from "node:path";
import { pathToFileURL as pathToFileURL2 } from "node:url";
var ModuleGraphs = class {
  /** CommonJS modules loaded before any bench file (benchgate's own): kept when a new module graph starts. */
  preloaded;
  graphs = 0;
  graphCaches = /* @__PURE__ */ new Map();
  cacheOfModule = /* @__PURE__ */ new WeakMap();
  /**
   * The URL to import `file` with so that it and everything it imports get instances of their own: a
   * module graph per bench file and per worker, as each would have in its own process or thread. Code
   * shared by the tasks of two files, or by two workers' scenarios (one router class behind eighteen
   * lookup scenarios), would otherwise be one function in this process, its inline caches and
   * optimised code shaped by whichever scenarios ran before: a task's figure would depend on its
   * neighbours, and change when they are decided and leave (docs/statistics.md). ES modules: the URL
   * carries a graph number that the resolve hook (hooks.ts) passes on to every file the module
   * imports. CommonJS: a require cache per graph, since Node keys a CommonJS module by its path alone.
   */
  inNewGraph(file) {
    const internal = Module;
    this.preloaded ??= new Set(Object.keys(internal._cache));
    const cache = /* @__PURE__ */ Object.create(null);
    for (const [key, module] of Object.entries(internal._cache)) if (this.preloaded.has(key) || key.endsWith(".node")) cache[key] = module;
    internal._cache = cache;
    this.graphCaches.set(++this.graphs, cache);
    return `${pathToFileURL2(file).href}?${GRAPH_PARAMETER}=${this.graphs}`;
  }
  /**
   * `require()` of a harness, which Node 20 does not pass through the module hooks: answered by `answer` when
   * a file outside node_modules requires it. Every require() runs in its parent's graph (inGraphOf).
   */
  wrapRequire(answer) {
    const internal = Module;
    const load = internal._load;
    const inGraphOf = this.inGraphOf.bind(this);
    internal._load = function(request, parent, isMain) {
      const harness = HARNESS_PACKAGES.includes(request) && parent?.filename && !parent.filename.includes(`${path3.sep}node_modules${path3.sep}`);
      return inGraphOf(parent, () => {
        if (!harness) return load.call(this, request, parent, isMain);
        return answer(request, internal._resolveFilename(request, parent), () => load.call(this, request, parent, isMain));
      });
    };
  }
  /**
   * A require() runs against the require cache of its parent's module graph: a module that requires lazily
   * (inside a function, at measurement time, after other graphs have loaded) gets its own graph's instances.
   */
  inGraphOf(parent, load) {
    const cache = parent ? this.graphCacheOf(parent) : void 0;
    const internal = Module;
    if (!cache || cache === internal._cache) return load();
    const active = internal._cache;
    internal._cache = cache;
    try {
      return load();
    } finally {
      internal._cache = active;
    }
  }
  graphCacheOf(module) {
    if (this.cacheOfModule.has(module)) return this.cacheOfModule.get(module);
    const filename = module.filename;
    if (typeof filename !== "string") return void 0;
    const cache = [...this.graphCaches.values()].find((candidate) => candidate[filename] === module);
    if (cache) this.cacheOfModule.set(module, cache);
    return cache;
  }
};

// src/measure/micro/harness/names.ts
function withoutPadding(tasks) {
  const names = unpadded(tasks.map((task) => task.name));
  const depth = Math.max(0, ...tasks.map((task) => task.suites.length));
  const suites = Array.from({ length: depth }, (_2, d2) => unpadded([...new Set(tasks.flatMap((task) => task.suites[d2] ?? []))]));
  return tasks.map((task) => {
    const suitesOf = task.suites.map((suite, d2) => suites[d2].get(suite) ?? suite);
    const name = names.get(task.name) ?? task.name;
    return name === task.name && suitesOf.every((suite, d2) => suite === task.suites[d2]) ? task : { ...task, suites: suitesOf, name };
  });
}
function unpadded(names) {
  const longest = Math.max(0, ...names.map((name) => name.length));
  const padded = names.filter((name) => name.length === longest && name.endsWith("."));
  return new Map(padded.length < 2 ? [] : padded.map((name) => [name, name.replace(/\.+$/, "") || name]));
}
function uniqueNames(tasks) {
  const seen = /* @__PURE__ */ new Map();
  return tasks.map((task) => {
    const key = [...task.suites, task.name].join("\0");
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    return count === 1 ? task : { ...task, name: `${task.name} (${count})` };
  });
}
function ownName(name) {
  return name.replace(/ \(\d+\)$/, "").split(" > ").map((part) => part.replace(/\.+$/, "")).join(" > ");
}
function trimmedName(name) {
  return String(name).trimEnd() || String(name);
}

// src/measure/micro/harness/mitata.ts
var MitataHarness = class {
  constructor(capture) {
    this.capture = capture;
  }
  capture;
  name = "mitata";
  package = "mitata";
  groups = [];
  declaring() {
    this.groups = [];
  }
  /** Our `bench`, `group`, `run`...: the revision's other exports (measure, $, ...) stay its own, beside these. */
  imported(resolved) {
    this.capture.record("mitata", resolved);
    const within = (name, body) => {
      const saved = this.groups;
      if (name) this.groups = [...saved, name];
      try {
        return body();
      } finally {
        this.groups = saved;
      }
    };
    const passThrough = (...args) => {
      const body = args.find((arg) => typeof arg === "function");
      return body?.();
    };
    const bench = (name, fn) => {
      const [label, body] = typeof name === "function" ? [name.name || "anonymous", name] : [String(name), fn];
      const declared = new MitataBench(label, body, [...this.groups]);
      this.capture.record("mitata", resolved);
      this.capture.stir();
      this.capture.later(() => declared.tasks());
      return declared;
    };
    return {
      bench,
      baseline: bench,
      group: (name, body) => typeof name === "function" ? within(void 0, name) : within(typeof name === "string" ? name : name?.name, body),
      summary: passThrough,
      barplot: passThrough,
      boxplot: passThrough,
      lineplot: passThrough,
      compact: passThrough,
      run: () => Promise.resolve({ benchmarks: [], context: {}, layout: [] }),
      do_not_optimize: (value) => void (sink2.value = value)
    };
  }
  required(resolved, load) {
    const loaded = load();
    return { ...loaded, ...this.imported(resolved) };
  }
};
var MitataBench = class {
  constructor(label, fn, groups) {
    this.label = label;
    this.fn = fn;
    this.groups = groups;
  }
  label;
  fn;
  groups;
  params = /* @__PURE__ */ new Map();
  name(label) {
    this.label = label;
    return this;
  }
  args(name, values) {
    if (Array.isArray(name)) this.params.set("x", name);
    else if (typeof name === "object" && name !== null)
      for (const [key, list] of Object.entries(name)) this.params.set(key, list);
    else this.params.set(String(name), values);
    return this;
  }
  range(name, start, end, multiplier = 8) {
    const values = [];
    for (let value = start; value <= end; value *= multiplier) values.push(value);
    return this.args(name, values);
  }
  dense_range(name, start, end, step = 1) {
    const values = [];
    for (let value = start; value <= end; value += step) values.push(value);
    return this.args(name, values);
  }
  baseline() {
    return this;
  }
  gc() {
    return this;
  }
  compact() {
    return this;
  }
  highlight() {
    return this;
  }
  async tasks() {
    let combinations = [{}];
    for (const [key, values] of this.params)
      combinations = combinations.flatMap((combo) => values.map((value) => ({ ...combo, [key]: value })));
    const tasks = [];
    for (const combo of combinations) {
      const name = this.label.replace(/\$(\w+)/g, (whole, key) => key in combo ? String(combo[key]) : whole);
      tasks.push({ suites: this.groups, name, ...await this.task(combo) });
    }
    return tasks;
  }
  async task(combo) {
    const state = { get: (key) => combo[key], ...combo };
    const kind = this.fn.constructor.name;
    if (kind !== "GeneratorFunction" && kind !== "AsyncGeneratorFunction") {
      const fn = this.fn;
      return { fn: fn.length > 0 ? () => fn(state) : fn, opts: {} };
    }
    const generator = this.fn(state);
    const first = await generator.next();
    const teardown = { afterAll: async () => void await generator.next() };
    const yielded = first.value;
    if (typeof yielded === "function") return { fn: yielded, opts: teardown };
    if (typeof yielded === "object" && yielded !== null && typeof yielded.bench === "function") {
      const computed = yielded;
      const makers = Object.keys(computed).filter((key) => /^\d+$/.test(key)).sort((a2, b) => Number(a2) - Number(b)).map((key) => computed[key]);
      let values = [];
      return {
        fn: () => computed.bench(...values),
        opts: { ...teardown, beforeEach: () => void (values = makers.map((make) => make())) }
      };
    }
    throw new Error(`mitata bench '${this.label}' yields ${typeof yielded}, not the function to time`);
  }
};
var sink2 = { value: void 0 };

// src/measure/micro/harness/tinybench.ts
var TinybenchHarness = class extends PatchedHarness {
  name = "tinybench";
  package = "tinybench";
  classIn(namespace) {
    return namespace.Bench ?? namespace.default?.Bench ?? namespace.default;
  }
  asImported(loaded) {
    return loaded;
  }
  patch(Bench, used) {
    const proto = Bench.prototype;
    const declared = /* @__PURE__ */ new WeakMap();
    const collected = /* @__PURE__ */ new WeakSet();
    const add = proto.add;
    proto.add = function(name, fn, opts = {}) {
      const list = declared.get(this) ?? [];
      list.push({ name, fn, opts });
      declared.set(this, list);
      return add.call(this, name, fn, opts);
    };
    const collect2 = (bench) => {
      if (collected.has(bench)) return;
      collected.add(bench);
      used();
      const present = new Set((bench.tasks ?? []).map((task) => task.name));
      const latest = new Map((declared.get(bench) ?? []).filter((task) => present.has(task.name)).map((task) => [task.name, task]));
      for (const { name, fn, opts } of latest.values())
        this.capture.add({
          suites: typeof bench.name === "string" && bench.name ? [bench.name] : [],
          name,
          fn,
          opts: withBenchHooks(bench, name, opts)
        });
    };
    for (const method of ["run", "runConcurrently"])
      if (typeof proto[method] === "function")
        proto[method] = function() {
          collect2(this);
          return Promise.resolve(this.tasks);
        };
    if (typeof proto.runSync === "function")
      proto.runSync = function() {
        collect2(this);
        return this.tasks;
      };
    for (const method of ["warmup", "warmupConcurrently"])
      if (typeof proto[method] === "function") proto[method] = () => Promise.resolve();
  }
};
function withBenchHooks(bench, name, opts) {
  const { setup, teardown } = bench;
  if (typeof setup !== "function" && typeof teardown !== "function") return opts;
  const task = () => bench.getTask?.(name);
  return {
    ...opts,
    beforeAll: async function() {
      if (typeof setup === "function") await setup(task(), "run");
      await opts.beforeAll?.call(this);
    },
    afterAll: async function() {
      await opts.afterAll?.call(this);
      if (typeof teardown === "function") await teardown(task(), "run");
    }
  };
}

// src/measure/micro/harness/vitest.ts
import { readFileSync as readFileSync5 } from "node:fs";
import Module2 from "node:module";
import { format } from "node:util";

// src/measure/micro/harness/vitest-config.ts
import { readFileSync as readFileSync4, realpathSync } from "node:fs";
import path6 from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL as pathToFileURL4 } from "node:url";

// src/util/manifest.ts
import { readFileSync as readFileSync3, statSync as statSync2 } from "node:fs";
import path4 from "node:path";
function isFile(file) {
  return statSync2(file, { throwIfNoEntry: false })?.isFile() === true;
}
function manifestScripts(root) {
  try {
    const scripts = JSON.parse(readFileSync3(path4.join(root, "package.json"), "utf8")).scripts;
    if (typeof scripts !== "object" || scripts === null) return {};
    return Object.fromEntries(Object.entries(scripts).filter((entry2) => typeof entry2[1] === "string"));
  } catch {
    return {};
  }
}
function nearestManifest(file, accept) {
  for (let dir = path4.dirname(file); dir !== path4.dirname(dir); dir = path4.dirname(dir)) {
    let manifest2;
    try {
      manifest2 = JSON.parse(readFileSync3(path4.join(dir, "package.json"), "utf8"));
    } catch {
      continue;
    }
    if (typeof manifest2 === "object" && manifest2 !== null && accept(manifest2))
      return { dir, manifest: manifest2 };
  }
  return void 0;
}

// src/measure/micro/harness/aliases.ts
import path5 from "node:path";
import { pathToFileURL as pathToFileURL3 } from "node:url";
function inThreadAliases(data) {
  return {
    resolve: (specifier, context, next) => Array.from(context.conditions ?? []).includes("require") && !/\.[cm]?tsx?(\?|$)/.test(context.parentURL ?? "") ? next(specifier, context) : next(aliased(data, specifier, context.parentURL) ?? specifier, context)
  };
}
function aliased(data, specifier, parent) {
  if (!parent?.startsWith("file:") || !data.aliases.length) return void 0;
  const url = new URL(parent);
  if (url.searchParams.get(GRAPH_PARAMETER) !== data.graph || url.pathname.includes("/node_modules/")) return void 0;
  for (const alias of data.aliases) {
    if (!matches(alias.find, specifier)) continue;
    if (alias.ifFound && /^(\.|\/|[a-z]+:)/.test(specifier)) continue;
    const replacements = typeof alias.replacement === "string" ? [alias.replacement] : alias.replacement;
    for (const replacement of replacements) {
      if (alias.find instanceof RegExp) alias.find.lastIndex = 0;
      const replaced = specifier.replace(alias.find, replacement);
      const found = path5.isAbsolute(replaced) ? existing(replaced) ?? (replaced.startsWith("/") ? existing(path5.join(data.viteRoot, replaced)) : void 0) : void 0;
      if (found) return pathToFileURL3(found).href;
      if (!alias.ifFound) return replaced;
    }
  }
  return void 0;
}
function matches(find, specifier) {
  if (find instanceof RegExp) {
    find.lastIndex = 0;
    return find.test(specifier);
  }
  return specifier === find || specifier.startsWith(`${find}/`);
}
var EXTENSIONS = [".mjs", ".js", ".mts", ".ts", ".jsx", ".tsx", ".json"];
function existing(file) {
  if (isFile(file)) return file;
  for (const extension of EXTENSIONS) if (isFile(file + extension)) return file + extension;
  for (const extension of EXTENSIONS) if (isFile(path5.join(file, `index${extension}`))) return path5.join(file, `index${extension}`);
  return void 0;
}

// src/measure/micro/harness/vitest-config.ts
var NAMES = ["vitest.config", "vite.config"].flatMap((name) => [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"].map((ext) => name + ext));
function vitestConfigFile(file, root) {
  const named = scriptConfig(root);
  if (named) return { file: named, cwd: root };
  const atRoot = (dir) => path6.relative(root, dir) === "" || path6.relative(root, dir).startsWith("..") || path6.dirname(dir) === dir;
  let start = path6.dirname(file);
  while (!isFile(path6.join(start, "package.json")) && !atRoot(start)) start = path6.dirname(start);
  for (let dir = start; ; dir = path6.dirname(dir)) {
    const found = NAMES.map((name) => path6.join(dir, name)).find(isFile);
    if (found) return { file: found, cwd: path6.dirname(found) };
    if (atRoot(dir)) return void 0;
  }
}
function scriptConfig(root) {
  for (const command of Object.values(manifestScripts(root)))
    for (const part of command.split(/&&|\|\||;/)) {
      if (!/\bvitest\s+bench\b/.test(part)) continue;
      const named = /(?:--config[=\s]+|\s-c\s+)(['"]?)([^\s'"]+)\1/.exec(part)?.[2];
      if (named && isFile(path6.resolve(root, named))) return path6.resolve(root, named);
    }
  return void 0;
}
function looksLikeVitest(source) {
  if (/(?:from\s*|require\s*\(\s*|import\s*\(\s*)['"]vitest['"]/.test(source)) return true;
  return /\bbench\s*\(/.test(source) && !/['"](?:benchmark|tinybench|mitata)['"]/.test(source);
}
var read = /* @__PURE__ */ new Map();
function vitestConfigOf(file, root) {
  const config = vitestConfigFile(file, root);
  if (!config) return void 0;
  let reading = read.get(config.file);
  if (!reading) {
    reading = readConfig(config.file, config.cwd, root);
    read.set(config.file, reading);
  }
  return reading;
}
var CONFIG_TIMEOUT_MS = 3e4;
async function readConfig(file, cwd, root) {
  const name = path6.relative(root, file).split(path6.sep).join("/");
  let exported;
  const globals = globalThis;
  const saved = { __dirname: globals.__dirname, __filename: globals.__filename };
  globals.__dirname = path6.dirname(file);
  globals.__filename = file;
  let timer;
  try {
    const loading = (async () => {
      const module = await import(pathToFileURL4(file).href);
      const value = module.default;
      return typeof value === "function" ? await value({ command: "serve", mode: "benchmark", isSsrBuild: false, isPreview: false }) : await value;
    })();
    const late = new Promise((_2, reject) => {
      timer = setTimeout(() => reject(new Error(`it did not finish loading in ${CONFIG_TIMEOUT_MS / 1e3} s`)), CONFIG_TIMEOUT_MS);
    });
    exported = await Promise.race([loading, late]);
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return {
      file,
      aliases: [],
      viteRoot: cwd,
      setupFiles: [],
      notes: [],
      failed: `${name} was not read (${message}): its aliases, setupFiles and define do not apply`
    };
  } finally {
    clearTimeout(timer);
    for (const [key, value] of Object.entries(saved)) {
      if (value === void 0) delete globals[key];
      else globals[key] = value;
    }
  }
  const config = isObject(exported) ? exported : {};
  const viteRoot = realpathOf(path6.resolve(cwd, typeof config.root === "string" ? config.root : "."));
  const notes = [];
  const aliases = [
    ...aliasesOf(config.test?.alias, `${name}: test.alias`, notes),
    ...aliasesOf(config.resolve?.alias, `${name}: resolve.alias`, notes),
    // The vite-tsconfig-paths plugin: tsconfig.json's paths, tried after the config's own, only where a target exists.
    ...pluginNames(config.plugins).includes("vite-tsconfig-paths") ? tsconfigPaths(viteRoot, notes) : []
  ];
  const setup = config.test?.setupFiles;
  const setupFiles = (typeof setup === "string" ? [setup] : Array.isArray(setup) ? setup : []).filter((entry2) => typeof entry2 === "string").map((entry2) => setupFile(entry2, viteRoot));
  defineGlobals(config.define, file, name, root, notes);
  return { file, aliases, viteRoot, setupFiles, notes };
}
function setupFile(entry2, viteRoot) {
  if (!/^(\.|\/)/.test(entry2))
    try {
      return createRequire(path6.join(viteRoot, "noop.js")).resolve(entry2);
    } catch {
    }
  const file = path6.resolve(viteRoot, entry2);
  return existing(file) ?? file;
}
function realpathOf(dir) {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}
function pluginNames(plugins) {
  return (Array.isArray(plugins) ? plugins.flat(8) : []).flatMap(
    (plugin) => isObject(plugin) && typeof plugin.name === "string" ? [plugin.name] : []
  );
}
function tsconfigPaths(dir, notes) {
  let options;
  let baseUrl;
  const visit = (file2, depth) => {
    let parsed;
    try {
      parsed = JSON.parse(withoutComments(readFileSync4(file2, "utf8")));
    } catch (error) {
      notes.push(`${path6.basename(file2)} was not read for vite-tsconfig-paths (${error.message})`);
      return;
    }
    const { paths, baseUrl: url } = parsed.compilerOptions ?? {};
    if (typeof url === "string" && !baseUrl) baseUrl = { value: url, from: path6.dirname(file2) };
    if (paths !== void 0 && !options) options = { paths, from: path6.dirname(file2) };
    if ((!options || !baseUrl) && typeof parsed.extends === "string" && parsed.extends.startsWith(".") && depth < 8) {
      const next = path6.resolve(path6.dirname(file2), parsed.extends);
      visit(isFile(next) ? next : `${next}.json`, depth + 1);
    }
  };
  const file = path6.join(dir, "tsconfig.json");
  if (isFile(file)) visit(file, 0);
  if (!options || !isObject(options.paths)) return [];
  const base = baseUrl ? path6.resolve(baseUrl.from, baseUrl.value) : options.from;
  const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return Object.entries(options.paths).flatMap(([pattern, targets]) => {
    const all = (Array.isArray(targets) ? targets : []).filter((target) => typeof target === "string");
    if (!all.length) return [];
    const [prefix, suffix = ""] = pattern.split("*");
    const wild = pattern.includes("*");
    const find = new RegExp(`^${escape(prefix)}${wild ? "(.*)" : ""}${escape(suffix)}$`);
    const replacement = all.map((target) => path6.resolve(base, wild ? target.replace("*", "$1") : target));
    return [{ find, replacement, ifFound: true }];
  });
}
function withoutComments(text) {
  return text.replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_2, string) => string ?? "").replace(/("(?:[^"\\]|\\.)*")|,(\s*[}\]])/g, (_2, string, close) => string ?? close);
}
function aliasesOf(value, where, notes) {
  const entries = Array.isArray(value) ? value : isObject(value) ? Object.entries(value).map(([find, replacement]) => ({ find, replacement })) : [];
  const aliases = [];
  for (const entry2 of entries) {
    const { find, replacement, customResolver } = isObject(entry2) ? entry2 : {};
    if ((typeof find === "string" || find instanceof RegExp) && typeof replacement === "string") {
      const slashed = typeof find === "string" && find.endsWith("/") && replacement.endsWith("/") && find.length > 1;
      aliases.push(slashed ? { find: find.slice(0, -1), replacement: replacement.slice(0, -1) } : { find, replacement });
      if (customResolver) notes.push(`${where}: the customResolver of '${String(find)}' is not run (the alias is)`);
    } else notes.push(`${where}: an entry without a string or RegExp find and a string replacement is left out`);
  }
  return aliases;
}
var definedBy = /* @__PURE__ */ new Map();
var appliedBy = /* @__PURE__ */ new Map();
function defineGlobals(define, file, name, root, notes) {
  const keys = /* @__PURE__ */ new Set();
  for (const [key, code] of Object.entries(isObject(define) ? define : {})) {
    if (["process", "global", "process.env", "import.meta.vitest"].includes(key)) continue;
    const value = definedValue(code);
    const env = /^(?:process|import\.meta)\.env\.([A-Za-z_$][\w$]*)$/.exec(key)?.[1];
    if (!value || !env && !/^[A-Za-z_$][\w$]*$/.test(key)) {
      notes.push(
        `${name}: define '${key}' is not applied (benchgate sets a plain name's JSON value on globalThis and process.env.X, as vitest does)`
      );
      continue;
    }
    keys.add(key);
    const earlier = definedBy.get(key);
    const text = JSON.stringify(value.value);
    if (earlier && earlier.file !== file && earlier.text !== text)
      notes.push(
        `${name}: define '${key}' is ${text} here and ${earlier.text} in ${earlier.name} read before it in this process (the other revision's, or another package's): one globalThis holds the last; --isolation process measures each revision alone`
      );
    definedBy.set(key, { file, name, root, text });
    if (env) process.env[env] = typeof value.value === "string" ? value.value : JSON.stringify(value.value);
    else globalThis[key] = value.value;
  }
  for (const applied of appliedBy.values())
    if (applied.root !== root) {
      for (const key of applied.keys)
        if (!keys.has(key))
          notes.push(
            `${name}: does not define '${key}', which the other revision's ${applied.name} sets in this process: its code sees that value; --isolation process measures each revision alone`
          );
    }
  appliedBy.set(file, { name, root, keys });
}
function definedValue(code) {
  if (typeof code !== "string") return code === void 0 || typeof code === "function" ? void 0 : { value: code };
  try {
    return { value: JSON.parse(code) };
  } catch {
    return void 0;
  }
}
function isObject(value) {
  return typeof value === "object" && value !== null;
}

// src/measure/micro/harness/vitest.ts
function vitestText(file) {
  try {
    return looksLikeVitest(readFileSync5(file, "utf8"));
  } catch {
    return false;
  }
}
var VitestHarness = class {
  constructor(capture) {
    this.capture = capture;
  }
  capture;
  name = "vitest";
  package = "vitest";
  suiteStack = [];
  imported(resolved) {
    const used = () => this.capture.record("vitest", resolved);
    used();
    const root = () => {
      used();
      if (!this.suiteStack.length) this.suiteStack.push(newSuite("", void 0, false));
      return this.suiteStack[this.suiteStack.length - 1];
    };
    const register2 = (name, fn, options, only2) => {
      if (typeof fn !== "function") return;
      const suite = root();
      this.addVitest(suite, vitestName(name), fn, options ?? {}, only2 || suite.only);
    };
    const benchOnly = (name, fn, options) => register2(name, fn, options, true);
    const benchSkipped = skippedWith(benchOnly);
    const bench = Object.assign(
      (name, fn, options) => register2(name, fn, options, false),
      {
        only: benchOnly,
        skip: benchSkipped,
        todo: benchSkipped,
        skipIf: (condition) => condition ? benchSkipped : bench,
        runIf: (condition) => condition ? bench : benchSkipped
      }
    );
    const collect2 = async (suite) => {
      for (let i2 = 0; i2 < suite.children.length; i2++) {
        const child = suite.children[i2];
        this.suiteStack.push(child);
        try {
          await child.factory?.();
        } finally {
          this.suiteStack.pop();
        }
        await collect2(child);
      }
      return [];
    };
    const describeWith = (only2) => (name, fn) => {
      const body = typeof fn === "function" ? fn : typeof name === "function" ? name : void 0;
      const label = vitestName(name);
      const parent = root();
      const suite = newSuite(label, parent, only2 || parent.only);
      suite.factory = body;
      parent.children.push(suite);
      if (parent.parent === void 0 && parent.children.length === 1) this.capture.later(() => collect2(parent));
    };
    const plain = describeWith(false);
    const only = describeWith(true);
    const describeOnly = Object.assign(only, { each: eachOf(only, true), for: eachOf(only, false) });
    Object.assign(describeOnly, { skip: describeOnly, todo: describeOnly });
    const describeSkipped = skippedWith(describeOnly);
    const describe = Object.assign(plain, {
      only: describeOnly,
      skip: describeSkipped,
      todo: describeSkipped,
      skipIf: (condition) => condition ? describeSkipped : describe,
      runIf: (condition) => condition ? describe : describeSkipped,
      each: eachOf(plain, true),
      for: eachOf(plain, false)
    });
    Object.assign(describe, { concurrent: describe, sequential: describe, shuffle: describe });
    Object.assign(describeOnly, { concurrent: describeOnly, sequential: describeOnly, shuffle: describeOnly });
    const hook = (kind) => (fn) => void root()[kind].push(fn);
    const test = IGNORED;
    const unavailable = (what, allowed = {}) => new Proxy(() => void 0, {
      get: (_2, key) => {
        if (typeof key === "string" && Object.hasOwn(allowed, key)) return allowed[key];
        throw new Error(`benchgate runs vitest bench files without vitest: '${what}' is not available in them`);
      },
      apply: () => {
        throw new Error(`benchgate runs vitest bench files without vitest: '${what}' is not available in them`);
      }
    });
    return {
      bench: supported(bench, "bench"),
      describe: supported(describe, "describe"),
      suite: supported(describe, "suite"),
      it: test,
      test,
      beforeAll: hook("beforeAll"),
      afterAll: hook("afterAll"),
      beforeEach: hook("beforeEach"),
      afterEach: hook("afterEach"),
      vi: unavailable("vi"),
      vitest: unavailable("vitest"),
      expect: unavailable("expect", { extend: () => void 0 }),
      assert: unavailable("assert")
    };
  }
  /** Resolved, never loaded: a require() gets the same stand-ins as an import. */
  required(resolved) {
    return this.imported(resolved);
  }
  /** A file starts with no suites (the previous file's root suite is still on the stack), and has vitest's globals while it loads. */
  declaring(file) {
    this.suiteStack.length = 0;
    return this.vitestGlobals(file);
  }
  /**
   * vitest's `globals: true`: bench files that call `bench` and `describe` without importing them.
   * While a file loads, those names (where the global scope has none) stand for the vitest capture.
   */
  vitestGlobals(file) {
    const names = ["bench", "describe", "suite", "beforeAll", "afterAll", "beforeEach", "afterEach"];
    if (vitestText(file)) names.push("it", "test", "vi", "expect", "assert");
    const scope = globalThis;
    const free = names.filter((name) => !(name in scope));
    let api;
    const vitest = () => api ??= this.imported(resolveFrom(file, "vitest") ?? "vitest (globals; not installed)");
    for (const name of free) Object.defineProperty(scope, name, { configurable: true, get: () => vitest()[name] });
    return () => {
      for (const name of free) delete scope[name];
    };
  }
  /**
   * vitest's semantics in benchgate's per-task hooks: a suite's beforeAll hooks run once, before the
   * first of its benches in this process (and what they return is a cleanup), its afterAll hooks after
   * the last; beforeEach/afterEach hooks run around each bench; the bench's own setup/teardown
   * options (tinybench's, called with the task and 'run') run innermost.
   */
  addVitest(suite, name, fn, options, only) {
    const chain = [];
    for (let at = suite; at; at = at.parent) chain.unshift(at);
    for (const member of chain) member.remaining++;
    const task = { name };
    const opts = {
      beforeAll: async () => {
        for (const member of chain) {
          if (member.started) continue;
          member.started = true;
          for (const hook of member.beforeAll) {
            const cleanup = await hook();
            if (typeof cleanup === "function") member.cleanups.unshift(cleanup);
          }
        }
        for (const member of chain) for (const hook of member.beforeEach) await hook();
        await options.setup?.(task, "run");
      },
      afterAll: async () => {
        await options.teardown?.(task, "run");
        for (const member of [...chain].reverse()) for (const hook of member.afterEach) await hook();
        for (const member of [...chain].reverse()) {
          if (--member.remaining > 0) continue;
          for (const hook of [...member.cleanups, ...member.afterAll]) await hook();
        }
      }
    };
    const suites = chain.map((member) => member.name).filter(Boolean);
    this.capture.add({ suites, name, fn, opts, ...only ? { only: true } : {} });
  }
};
function newSuite(name, parent, only) {
  return {
    name,
    parent,
    only,
    children: [],
    started: false,
    remaining: 0,
    cleanups: [],
    beforeAll: [],
    afterAll: [],
    beforeEach: [],
    afterEach: []
  };
}
function resolveFrom(file, specifier) {
  try {
    return Module2.createRequire(file).resolve(specifier);
  } catch {
    return void 0;
  }
}
function skippedWith(only) {
  const skipped = Object.assign(() => void 0, { each: () => () => void 0, for: () => () => void 0 });
  return Object.assign(skipped, {
    skip: skipped,
    todo: skipped,
    concurrent: skipped,
    sequential: skipped,
    shuffle: skipped,
    skipIf: () => skipped,
    runIf: () => skipped,
    only
  });
}
var IGNORED = new Proxy(() => IGNORED, {
  get: (_target, property) => property === "then" || typeof property === "symbol" ? void 0 : IGNORED
});
function vitestName(name) {
  if (typeof name === "string") return name;
  return typeof name === "function" ? name.name || "<anonymous>" : String(name);
}
function eachOf(describe, spread) {
  return (cases, ...rest) => {
    const form = spread ? "describe.each" : "describe.for";
    if (!Array.isArray(cases) || rest.length > 0 && Array.isArray(cases.raw))
      throw new Error(
        `benchgate runs vitest bench files without vitest: ${form} takes an array of cases here (a template-literal table is not supported)`
      );
    const arrays = cases.every(Array.isArray);
    return (name, fn) => {
      if (typeof fn !== "function") return;
      cases.forEach((item, index) => {
        const items = Array.isArray(item) ? item : [item];
        const args = spread && arrays ? items : [item];
        describe(eachTitle(vitestName(name), items, index), () => fn(...args));
      });
    };
  };
}
function eachTitle(template, items, index) {
  const escaped = "\uE000";
  let title = template.replaceAll("%%", escaped).replaceAll("%#", String(index)).replaceAll("%$", String(index + 1)).replaceAll(escaped, "%%");
  const placeholders = (title.match(/%[sdifjoOc]/g) ?? []).length;
  title = placeholders > 0 ? format(title, ...items.slice(0, placeholders)) : title.replace(/%%/g, "%");
  const first = items[0];
  if (first === null || typeof first !== "object" || Array.isArray(first)) return title;
  return title.replace(/\$([\w$.]+)/g, (whole, key) => {
    let value = first;
    for (const part of key.split(".")) {
      if (value === null || typeof value !== "object" || !(part in value)) return whole;
      value = value[part];
    }
    return typeof value === "string" ? value : format("%o", value);
  });
}
function supported(api, name) {
  return new Proxy(api, {
    get(target, property, receiver) {
      if (typeof property === "symbol") return Reflect.get(target, property, receiver);
      if (!(property in target))
        throw new Error(`benchgate runs vitest bench files without vitest: '${name}.${property}' is not supported in them`);
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" && Object.hasOwn(target, property) ? supported(value, `${name}.${property}`) : value;
    }
  });
}

// src/measure/micro/harness/workers.ts
import { EventEmitter } from "node:events";
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import path7 from "node:path";
import { fileURLToPath } from "node:url";
import workerThreads from "node:worker_threads";
var StandIns = class {
  constructor(host) {
    this.host = host;
  }
  host;
  /** Workers started and not yet loaded: the file has not settled while any is. */
  running = 0;
  queue = Promise.resolve();
  count = 0;
  workersOfFile = 0;
  /** A bench file starts loading: its workers are its units 1, 2, ... */
  declaring() {
    this.workersOfFile = 0;
  }
  /**
   * Replace Worker and the node-forking functions. Only while a bench file loads: a task that starts a
   * worker or a process when it is measured gets the real thing.
   */
  install() {
    const start = (worker, port, filename, options) => this.startWorker(worker, port, filename, options);
    const loading = () => this.host.loading;
    const RealWorker = workerThreads.Worker;
    class CapturedWorker extends EventEmitter {
      threadId = 0;
      port = new EventEmitter();
      constructor(filename, options = {}) {
        super();
        if (!loading()) return new RealWorker(filename, options);
        this.threadId = start(this, this.port, filename, options);
      }
      postMessage(message) {
        setImmediate(() => this.port.emit("message", message));
      }
      terminate() {
        return Promise.resolve(0);
      }
      ref() {
      }
      unref() {
      }
    }
    workerThreads.Worker = CapturedWorker;
    const refuse = (what, file) => {
      this.host.declaration?.children.push(file);
      throw new Error(
        `benchgate does not run benchmarks in child processes (${what} '${file}'): it times tasks in its own processes, alternating base and head`
      );
    };
    const isNode = (command) => command === process.execPath || command === "node" || String(command).endsWith("/node");
    const real = childProcess;
    const { fork } = real;
    const stand = {
      fork: (modulePath, ...rest) => this.host.loading ? refuse("child_process.fork", String(modulePath)) : fork(modulePath, ...rest)
    };
    for (const name of ["spawn", "spawnSync", "execFile", "execFileSync"]) {
      const original = real[name];
      stand[name] = (command, ...rest) => isNode(command) && this.host.loading ? refuse(name, nodeScript(rest)) : original(command, ...rest);
    }
    Object.assign(childProcess, stand);
    syncBuiltinESMExports();
  }
  /** A stand-in Worker's start: its file is loaded after the workers started before it; then it exits with 0. */
  startWorker(worker, port, filename, options) {
    const threadId = ++this.count;
    const unit = ++this.workersOfFile;
    const file = filename instanceof URL || String(filename).startsWith("file:") ? fileURLToPath(filename) : path7.resolve(String(filename));
    if (options.eval) throw new Error("benchgate cannot collect tasks from a worker started from a string of code (eval: true)");
    this.host.declaration?.workers.push(file);
    if (this.host.onlyUnit !== void 0 && unit !== this.host.onlyUnit) {
      this.host.stir();
      setImmediate(() => (worker.emit("online"), worker.emit("exit", 0), this.host.stir()));
      return threadId;
    }
    this.running++;
    Object.assign(port, {
      postMessage: (message) => setImmediate(() => worker.emit("message", message)),
      close() {
      },
      ref() {
      },
      unref() {
      }
    });
    this.queue = this.queue.then(async () => {
      try {
        await this.runWorker(file, threadId, unit, options.workerData, port);
        setImmediate(() => (worker.emit("online"), worker.emit("exit", 0)));
      } catch (error) {
        const declared = this.host.declaration?.tasks.some((task) => task.unit === unit);
        if (declared && this.host.lateError(error)) setImmediate(() => (worker.emit("online"), worker.emit("exit", 0)));
        else {
          this.host.declaration?.workerErrors.push({ file, error });
          setImmediate(() => (worker.emit("error", error), worker.emit("exit", 1)));
        }
      } finally {
        this.running--;
        this.host.stir();
      }
    });
    return threadId;
  }
  /** Load a worker's file in this thread, as that worker would see it, once per worker. */
  async runWorker(file, threadId, unit, workerData, port) {
    const builtin = workerThreads;
    const saved = {
      workerData: builtin.workerData,
      parentPort: builtin.parentPort,
      isMainThread: builtin.isMainThread,
      threadId: builtin.threadId
    };
    Object.assign(builtin, { workerData: structuredClone(workerData), parentPort: port, isMainThread: false, threadId });
    syncBuiltinESMExports();
    this.host.unit = unit;
    try {
      try {
        await import(this.host.inNewGraph(file));
      } finally {
        Object.assign(builtin, saved);
        syncBuiltinESMExports();
      }
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      this.host.unit = 0;
    }
  }
};
function nodeScript(rest) {
  const args = rest.find((arg) => Array.isArray(arg));
  const script = args?.find((arg) => typeof arg === "string" && !arg.startsWith("-"));
  return script ?? "a script";
}

// src/measure/micro/harness/capture.ts
var SYMBOL = /* @__PURE__ */ Symbol.for("benchgate.capture");
var Capture = class {
  current;
  activity = 0;
  /** The unit of the bench file that is loading: 0 the file itself, k its k-th worker. */
  unit = 0;
  /** In an isolate of one unit (isolates.ts): the one worker of a bench file to load (workers.ts). */
  onlyUnit;
  graphs = new ModuleGraphs();
  standIns = new StandIns(this);
  /** The harness modules, by the package a bench file imports or requires. */
  harnesses = new Map(
    [
      new BenchmarkjsHarness(this),
      new TinybenchHarness(this),
      new MitataHarness(this),
      new VitestHarness(this),
      new CronometroHarness(this)
    ].map((harness) => [harness.package, harness])
  );
  get loading() {
    return this.current !== void 0;
  }
  /** What the file that is loading has declared so far (the stand-ins add its workers and refused processes). */
  get declaration() {
    return this.current;
  }
  /** Load one bench file and everything it declares, in any shape benchgate knows. */
  async declare(file, load) {
    const declaration = {
      tasks: [],
      harnesses: [],
      workers: [],
      workerErrors: [],
      children: [],
      lateErrors: [],
      pending: [],
      only: false
    };
    this.current = declaration;
    this.unit = 0;
    this.standIns.declaring();
    const exit = Object.getOwnPropertyDescriptor(process, "exit");
    process.exit = ((code) => void this.lateError(new Error(`called process.exit(${code ?? ""})`)));
    const undo = [...this.harnesses.values()].map((harness) => harness.declaring?.(file));
    try {
      await load();
      await this.settle();
      for (const pending of declaration.pending) declaration.tasks.push(...await pending());
    } finally {
      for (const done of undo) done?.();
      Object.defineProperty(process, "exit", exit);
      this.current = void 0;
    }
    let { tasks } = declaration;
    if (declaration.only) tasks = tasks.filter((task) => task.only);
    return { ...declaration, tasks: uniqueNames(withoutPadding(tasks)) };
  }
  /** Errors thrown or rejected while a file loads land here once it has declared something. */
  lateError(error) {
    if (!this.current) return false;
    this.current.lateErrors.push(error);
    return true;
  }
  /**
   * Self-running scripts go on after `run()`: an async main, a chain of suites, a worker per
   * scenario. Wait until nothing has happened for three turns of the event loop (100 ms when
   * timers are pending) and no worker is loading, for 10 s at most.
   */
  async settle() {
    const end = performance.now() + 1e4;
    let seen = -1;
    let quietSince = performance.now();
    let quietTurns = 0;
    while (performance.now() < end) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.activity !== seen || this.standIns.running > 0) {
        seen = this.activity;
        quietSince = performance.now();
        quietTurns = 0;
        continue;
      }
      quietTurns++;
      const timers = process.getActiveResourcesInfo().includes("Timeout");
      if (quietTurns >= 3 && (!timers || performance.now() - quietSince >= 100)) return;
      if (timers) await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  record(harness, resolved) {
    const declaration = this.current;
    if (!declaration) return;
    const file = resolved.startsWith("file:") ? fileURLToPath2(resolved) : resolved;
    if (declaration.harnesses.some((copy) => copy.harness === harness && copy.path === file)) return;
    declaration.harnesses.push({ harness, path: file, ...versionOf(file) });
  }
  add(task) {
    this.activity++;
    this.current?.tasks.push({ unit: this.unit, ...task, name: trimmedName(task.name) });
    if (task.only && this.current) this.current.only = true;
  }
  /** A harness that declares its tasks once the file has settled: they belong to the unit that was loading when it was called. */
  later(collect2) {
    const unit = this.unit;
    this.current?.pending.push(async () => (await collect2()).map((task) => ({ unit, ...task })));
  }
  stir() {
    this.activity++;
  }
  // The modules hooks.ts generates for a bench file's `import` of a harness call these, by name.
  benchmarkjs(namespace, resolved) {
    this.harnesses.get("benchmark").imported(resolved, namespace);
  }
  tinybench(namespace, resolved) {
    this.harnesses.get("tinybench").imported(resolved, namespace);
  }
  /** `real` is the revision's mitata; its other exports (measure, $, ...) stay its own. */
  mitata(real, resolved) {
    return this.harnesses.get("mitata").imported(resolved, real);
  }
  vitest(resolved) {
    return this.harnesses.get("vitest").imported(resolved);
  }
  /** Our `cronometro` (its default export too); the revision's other exports stay its own. */
  cronometro(_real, resolved) {
    return this.harnesses.get("cronometro").imported(resolved);
  }
  /** A module graph of its own for a bench file (graphs.ts). */
  inNewGraph(file) {
    return this.graphs.inNewGraph(file);
  }
  /** Stand in for Worker and the node-forking functions (workers.ts), and answer `require()` of a harness (graphs.ts). */
  install() {
    this.standIns.install();
    this.graphs.wrapRequire((request, resolved, load) => this.harnesses.get(request).required(resolved, load));
  }
};
function versionOf(file) {
  const found = nearestManifest(file, (manifest2) => typeof manifest2.name === "string" && typeof manifest2.version === "string");
  return found ? { version: found.manifest.version } : {};
}
var installed;
function harnessCapture() {
  if (!installed) {
    installed = new Capture();
    installed.install();
    globalThis[SYMBOL] = installed;
  }
  return installed;
}

// src/measure/micro/capture-setup.ts
function installCapture(sourceMaps, inThread) {
  if (sourceMaps) process.setSourceMapsEnabled(true);
  const data = { transform: new URL("./typescript.js", import.meta.url).href };
  const registerHooks2 = nodeModule.registerHooks;
  registerInThread = inThread && typeof registerHooks2 === "function" ? registerHooks2 : void 0;
  if (registerInThread) registerInThread(inThread(data));
  else nodeModule.register(new URL("./hooks.js", import.meta.url), { data });
  harnessCapture();
}
var registerInThread;
var aliasRegistrations = 0;
function registerAliases(data) {
  if (registerInThread) registerInThread(inThreadAliases(data));
  else nodeModule.register(new URL(`./aliases.js?registration=${++aliasRegistrations}`, import.meta.url), { data });
}

// src/measure/micro/harness/hooks.ts
import { readFileSync as readFileSync6 } from "node:fs";
import { createRequire as createRequire2 } from "node:module";
import path8 from "node:path";
import { fileURLToPath as fileURLToPath3, pathToFileURL as pathToFileURL5 } from "node:url";
import vm from "node:vm";

// src/measure/micro/harness/typescript-files.ts
var isTypeScript = (pathOrUrl) => /\.(?:ts|mts|cts)$/.test(pathOrUrl.replace(/[?#].*$/s, ""));

// src/measure/micro/harness/hooks.ts
var SCHEME = "benchgate-harness:";
var REQUIRE_SCHEME = `${SCHEME}require:`;
function settleNow(steps) {
  let sent = { value: void 0 };
  for (; ; ) {
    const step = "error" in sent ? steps.throw(sent.error) : steps.next(sent.value);
    if (step.done) return step.value;
    try {
      sent = { value: step.value() };
    } catch (error) {
      sent = { error };
    }
  }
}
var transformUrl = "";
var answerKey = "benchgate.capture";
function initialize(data) {
  transformUrl = data.transform;
  if (data.answer) answerKey = data.answer;
}
function inThreadHooks(data) {
  initialize(data);
  const requireTransform = () => createRequire2(import.meta.url)(fileURLToPath3(transformUrl));
  return {
    resolve: (specifier, context, next) => required(context) && (!isTypeScriptUrl(context.parentURL) || HARNESS_PACKAGES.includes(specifier)) ? next(specifier, context) : settleNow(resolveSteps(specifier, context, next)),
    load: (url, context, next) => required(context) && !isTypeScriptUrl(url) && !url.startsWith(SCHEME) ? next(url, context) : settleNow(loadSteps(url, context, next, requireTransform))
  };
}
function isTypeScriptUrl(url) {
  return url?.startsWith("file:") === true && isTypeScript(url);
}
function required(context) {
  return Array.from(context.conditions ?? []).includes("require");
}
function* resolveSteps(specifier, context, next) {
  const resolved = yield* resolveOnce(specifier, context, next);
  return inParentGraph(resolved, context.parentURL);
}
function inParentGraph(resolved, parent) {
  if (!parent?.startsWith("file:") || !resolved.url.startsWith("file:")) return resolved;
  const graph = new URL(parent).searchParams.get(GRAPH_PARAMETER);
  if (graph === null) return resolved;
  const url = new URL(resolved.url);
  if (url.searchParams.has(GRAPH_PARAMETER) || HARNESS_IN_PATH.test(url.pathname)) return resolved;
  const hashAt = resolved.url.indexOf("#");
  const [head, hash] = hashAt < 0 ? [resolved.url, ""] : [resolved.url.slice(0, hashAt), resolved.url.slice(hashAt)];
  return { ...resolved, url: `${head}${head.includes("?") ? "&" : "?"}${GRAPH_PARAMETER}=${graph}${hash}` };
}
var HARNESS_IN_PATH = new RegExp(`/node_modules/(${HARNESS_PACKAGES.join("|")})/`);
function* resolveOnce(specifier, context, next) {
  const parent = context.parentURL;
  if (HARNESS_PACKAGES.includes(specifier) && parent && !parent.startsWith(SCHEME) && !parent.includes("/node_modules/")) {
    const real = yield () => next(specifier, context);
    return { url: `${SCHEME}${specifier}?${encodeURIComponent(real.url)}`, shortCircuit: true };
  }
  if (parent && isTypeScriptUrl(parent)) {
    const harness = requiredHarness(specifier, parent);
    if (harness) return { url: `${REQUIRE_SCHEME}${harness}?${encodeURIComponent(parent)}`, shortCircuit: true };
    if (isPathLike(specifier)) return yield* resolveFromTypeScript(specifier, context, next);
  }
  return yield () => next(specifier, context);
}
function requiredHarness(specifier, parent) {
  if (!specifier.startsWith("file:") || parent.includes("/node_modules/")) return void 0;
  const name = HARNESS_IN_PATH.exec(new URL(specifier).pathname)?.[1];
  if (!name) return void 0;
  try {
    return pathToFileURL5(createRequire2(fileURLToPath3(parent)).resolve(name)).href === specifier ? name : void 0;
  } catch {
    return void 0;
  }
}
function* resolveFromTypeScript(specifier, context, next) {
  try {
    return yield () => next(specifier, context);
  } catch (error) {
    const code = error.code;
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "ERR_UNSUPPORTED_DIR_IMPORT") throw error;
    for (const candidate of typeScriptCandidates(specifier)) {
      try {
        return yield () => next(candidate, context);
      } catch {
      }
    }
    throw error;
  }
}
function typeScriptCandidates(specifier) {
  const swapped = { ".js": [".ts", ".tsx"], ".mjs": [".mts"], ".cjs": [".cts"], ".jsx": [".tsx"] };
  const extension = path8.posix.extname(specifier);
  if (swapped[extension]) return swapped[extension].map((ext) => specifier.slice(0, -extension.length) + ext);
  return [".ts", ".tsx", ".mts", ".js", ".mjs", "/index.ts", "/index.js"].map((ext) => specifier.replace(/\/$/, "") + ext);
}
function isPathLike(specifier) {
  return specifier.startsWith("./") || specifier.startsWith("../") || specifier.startsWith("/") || specifier.startsWith("file:");
}
function* loadSteps(url, context, next, loadTransform) {
  if (url.startsWith(REQUIRE_SCHEME)) return { format: "commonjs", source: requireModule(url), shortCircuit: true };
  if (url.startsWith(SCHEME)) return { format: "module", source: yield* captureModule(url, next), shortCircuit: true };
  if (isTypeScriptUrl(url)) return yield* loadTypeScript(url, loadTransform);
  if (isBareJsonImport(url, context)) return loadJson(url);
  return yield () => next(url, context);
}
function isBareJsonImport(url, context) {
  if (!url.startsWith("file:") || context.importAttributes?.type !== void 0) return false;
  const { pathname } = new URL(url);
  return pathname.endsWith(".json") && !pathname.includes("/node_modules/");
}
function loadJson(url) {
  const file = fileURLToPath3(url);
  let value;
  try {
    value = JSON.parse(readFileSync6(file, "utf8"));
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${error.message})`, { cause: error });
  }
  const names = value !== null && typeof value === "object" && !Array.isArray(value) ? Object.keys(value).filter((key) => /^[A-Za-z_$][\w$]*$/.test(key) && !RESERVED.has(key)) : [];
  const source = [
    `const value = JSON.parse(${JSON.stringify(JSON.stringify(value))});`,
    "export default value;",
    ...names.map((key) => `export const ${key} = value[${JSON.stringify(key)}];`)
  ].join("\n");
  return { format: "module", source, shortCircuit: true };
}
var RESERVED = new Set(
  "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await arguments eval".split(" ")
);
function* captureModule(url, next) {
  const { name, value: real } = schemeUrl(url, SCHEME);
  const target = JSON.stringify(real);
  const capture = `const capture = globalThis[Symbol.for(${JSON.stringify(answerKey)})];`;
  if (name === "vitest") {
    const names = [
      "bench",
      "describe",
      "suite",
      "it",
      "test",
      "beforeAll",
      "afterAll",
      "beforeEach",
      "afterEach",
      "vi",
      "vitest",
      "expect",
      "assert"
    ];
    return `${capture}
const api = capture.vitest(${target});
export const { ${names.join(", ")} } = api;
export default api;
`;
  }
  if (name === "cronometro") {
    const answered = `const answered = capture.cronometro(real, ${target});`;
    const exported = `export const cronometro = answered.cronometro;
export default answered.default;
export * from ${target};`;
    return `import * as real from ${target};
${capture}
${answered}
${exported}
`;
  }
  const hasDefault = yield* exportsDefault(real, next);
  const reexport = `export * from ${target};${hasDefault ? `
export { default } from ${target};` : ""}`;
  if (name === "mitata") {
    const names = ["bench", "group", "summary", "barplot", "boxplot", "lineplot", "compact", "baseline", "run", "do_not_optimize"];
    return `import * as real from ${target};
${capture}
export const { ${names.join(", ")} } = capture.mitata(real, ${target});
${reexport}
`;
  }
  return `import * as real from ${target};
${capture}
capture.${name === "benchmark" ? "benchmarkjs" : "tinybench"}(real, ${target});
${reexport}
`;
}
function requireModule(url) {
  const { name, value } = schemeUrl(url, REQUIRE_SCHEME);
  const file = fileURLToPath3(value);
  return `module.exports = module.constructor.createRequire(${JSON.stringify(file)})(${JSON.stringify(name)});
`;
}
function schemeUrl(url, scheme) {
  const query = url.indexOf("?");
  return { name: url.slice(scheme.length, query), value: decodeURIComponent(url.slice(query + 1)) };
}
function* exportsDefault(url, next) {
  if (!url.startsWith("file:")) return false;
  const loaded = yield () => next(url, { conditions: [], format: void 0 });
  if (loaded.format === "commonjs") return true;
  const source = loaded.source ? Buffer.from(loaded.source).toString("utf8") : "";
  return /\bexport\s+default\b|\bas\s+default\b/.test(source);
}
var transform;
function* loadTypeScript(url, loadTransform) {
  const file = fileURLToPath3(url);
  if (file.endsWith(".tsx")) throw new Error(`${file}: JSX in TypeScript bench files is not supported`);
  transform ??= yield loadTransform;
  const { code } = transform.transformTypeScript(readFileSync6(file, "utf8"), file);
  return { format: typeScriptFormat(file, code), source: code, shortCircuit: true };
}
function typeScriptFormat(file, code) {
  if (file.endsWith(".mts")) return "module";
  if (file.endsWith(".cts")) return "commonjs";
  const type = packageType(path8.dirname(file));
  if (type === "module") return "module";
  if (type === "commonjs") return "commonjs";
  try {
    new vm.Script(`(function () {${code}
})`, { filename: file });
    return "commonjs";
  } catch {
    return "module";
  }
}
function packageType(dir) {
  for (let current2 = dir; ; current2 = path8.dirname(current2)) {
    try {
      const manifest2 = JSON.parse(readFileSync6(path8.join(current2, "package.json"), "utf8"));
      return typeof manifest2.type === "string" ? manifest2.type : "none";
    } catch {
      if (path8.dirname(current2) === current2) return void 0;
    }
  }
}

// src/measure/micro/isolates.ts
import os from "node:os";
import { Worker } from "node:worker_threads";

// src/util/affinity.ts
import { execFileSync } from "node:child_process";

// src/util/processes.ts
import { randomBytes } from "node:crypto";
var BASICS = /* @__PURE__ */ new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
  "CI",
  "XDG_CACHE_HOME",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_RUNTIME_DIR",
  // Set by a shell or by npm for the commands they run.
  "PWD",
  "OLDPWD",
  "SHLVL",
  "_",
  "INIT_CWD",
  // Set by benchgate for a server: where to listen.
  "PORT",
  "HOST",
  // libuv's thread pool: the user's own, or one thread in a counted process (measure/counts/callgrind.ts COUNTED_ENV).
  "UV_THREADPOOL_SIZE",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy"
]);
var CONTEXT = /* @__PURE__ */ new Set([
  "GITHUB_ACTIONS",
  "GITHUB_ACTION",
  "GITHUB_ACTOR",
  "GITHUB_REPOSITORY",
  "GITHUB_REPOSITORY_OWNER",
  "GITHUB_SHA",
  "GITHUB_REF",
  "GITHUB_REF_NAME",
  "GITHUB_REF_TYPE",
  "GITHUB_HEAD_REF",
  "GITHUB_BASE_REF",
  "GITHUB_EVENT_NAME",
  "GITHUB_RUN_ID",
  "GITHUB_RUN_NUMBER",
  "GITHUB_RUN_ATTEMPT",
  "GITHUB_JOB",
  "GITHUB_WORKFLOW",
  "GITHUB_WORKSPACE",
  "GITHUB_SERVER_URL",
  "GITHUB_API_URL",
  "GITHUB_GRAPHQL_URL"
]);
var TOOL_PREFIXES = ["LC_", "NODE_", "NPM_", "COREPACK_", "PNPM_", "YARN_", "RUNNER_", "BENCHGATE_"];
var JOB_FILES = /* @__PURE__ */ new Set(["GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY"]);
var SECRET_WORD = /PASSWORD|PASSWD|SECRET|TOKEN|CREDENTIAL|PRIVATE_?KEY|API_?KEY|(?:^|[_:/])_*(?:KEY|PAT|PASS|AUTH|CERT|DSN|URL|URI)(?:_|$)/i;
function looksLikeCredential(name) {
  return SECRET_WORD.test(name) || name.includes("//");
}
var extraNames = { trusted: /* @__PURE__ */ new Set(), fromConfig: /* @__PURE__ */ new Set() };
function neverPassed(name) {
  const upper = name.toUpperCase();
  return JOB_FILES.has(upper) || upper.startsWith("INPUT_") || upper.startsWith("ACTIONS_") || upper === "GITHUB_TOKEN";
}
function isChildVariable(name) {
  if (neverPassed(name)) return false;
  if (extraNames.trusted.has(name)) return true;
  const secretLooking = looksLikeCredential(name);
  if (extraNames.fromConfig.has(name)) return !secretLooking;
  if (BASICS.has(name) || CONTEXT.has(name)) return true;
  const upper = name.toUpperCase();
  return TOOL_PREFIXES.some((prefix) => upper.startsWith(prefix)) && !secretLooking;
}
function childEnvironment(env = process.env) {
  return Object.fromEntries(Object.entries(env).filter(([name]) => isChildVariable(name)));
}
var runMark = `${process.pid}-${randomBytes(8).toString("hex")}`;

// src/util/affinity.ts
function setAffinity(cpus, pid = process.pid) {
  return taskset(["-a", "-p", "-c", cpus, String(pid)]) !== void 0;
}
function affinityOf(pid = process.pid) {
  return taskset(["-c", "-p", String(pid)])?.split(":").pop()?.trim() || void 0;
}
function taskset(args) {
  try {
    return execFileSync("taskset", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], env: childEnvironment() });
  } catch {
    return void 0;
  }
}

// src/measure/micro/isolates.ts
var IsolateCrash = class extends Error {
};
var Isolate = class _Isolate {
  constructor(worker, key, tasks) {
    this.worker = worker;
    this.key = key;
    this.tasks = tasks;
    worker.on("message", (message) => {
      if (message.type === "crashed") return this.end(new IsolateCrash(`${this.where()} threw outside any task call: ${message.message}`));
      if (message.type !== "reply") return;
      const waiting = this.pending.get(message.seq);
      this.pending.delete(message.seq);
      if (message.failure !== void 0) waiting?.reject(SideFailure.told(key.revision, message.failure));
      else waiting?.resolve(message.value);
    });
    worker.on("error", (error) => this.end(new IsolateCrash(`${this.where()} threw: ${error.message}`)));
    worker.on("exit", (code) => this.end(new IsolateCrash(`${this.where()} exited with code ${code}`)));
  }
  worker;
  key;
  tasks;
  seq = 0;
  pending = /* @__PURE__ */ new Map();
  ended;
  /** Start the isolate and wait until its file has loaded: what it declares in that unit. */
  static start(key, sourceMaps) {
    const data = { ...key, sourceMaps };
    const worker = new Worker(new URL("./isolate.js", import.meta.url), { workerData: data });
    return new Promise((resolve, reject) => {
      const failed = (error) => reject(error);
      worker.once("error", failed);
      worker.once("exit", (code) => reject(new Error(`its isolate exited with code ${code} while loading`)));
      worker.on("message", function loaded(message) {
        if (message.type === "crashed" || message.type === "failed to load") {
          void worker.terminate();
          return reject(new Error(message.message));
        }
        if (message.type !== "loaded") return;
        worker.off("message", loaded);
        worker.off("error", failed);
        worker.removeAllListeners("exit");
        resolve(new _Isolate(worker, key, message.tasks));
      });
    });
  }
  request(message) {
    if (this.ended) return Promise.reject(this.ended);
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      this.worker.postMessage({ ...message, seq });
    });
  }
  async close() {
    if (!this.ended) await this.request({ op: "drain", task: -1 }).catch(() => void 0);
    this.ended ??= new Error("closed");
    this.worker.removeAllListeners("exit");
    await this.worker.terminate();
  }
  where() {
    return `${this.key.file} (${this.key.revision}${this.key.unit ? `, worker ${this.key.unit}` : ""}) in its own isolate`;
  }
  end(error) {
    if (this.ended) return;
    this.ended = error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
    this.onCrash?.(error);
  }
  onCrash;
};
var IsolatedSide = class {
  constructor(isolate, task, hooked) {
    this.isolate = isolate;
    this.task = task;
    this.hooked = hooked;
  }
  isolate;
  task;
  hooked;
  get revision() {
    return this.isolate.key.revision;
  }
  async warm() {
    return await this.isolate.request({ op: "warm", task: this.task });
  }
  async setBatch(batch) {
    await this.isolate.request({ op: "batch", task: this.task, batch });
  }
  async block(iterations) {
    return await this.isolate.request({ op: "block", task: this.task, iterations });
  }
  async finish() {
    await this.isolate.request({ op: "finish", task: this.task }).catch(() => void 0);
  }
};
var Isolates = class {
  constructor(sourceMaps, onCrash, affinity) {
    this.sourceMaps = sourceMaps;
    this.onCrash = onCrash;
    this.affinity = affinity;
  }
  sourceMaps;
  onCrash;
  affinity;
  started = /* @__PURE__ */ new Map();
  /**
   * The side of a task in the isolate of `key`, started if it is not: the task declared `at` (0, 1, ...) in
   * its unit, named `name` in the shared process. By place, not name: names padded to the longest of the
   * file, or numbered ' (2)' among its tasks, read otherwise in a process that loads one unit. A side that
   * fails to load or declares otherwise fails when warmed, with what differs.
   */
  async side(key, at, name, hooked) {
    const id = keyOf(key);
    let isolate = this.started.get(id);
    if (!isolate) {
      this.affinity.release();
      isolate = Isolate.start(key, this.sourceMaps).then((started) => (started.onCrash = this.onCrash, started));
      this.started.set(id, isolate);
    }
    try {
      const ready = await isolate;
      const there = ready.tasks[at];
      if (there === void 0 || ownName(there) !== ownName(name))
        return failing2(
          key.revision,
          `in an isolate of its own, ${key.file} declared ${there === void 0 ? `${ready.tasks.length} tasks there` : `'${there}'`} where the shared process had '${name}'`
        );
      return new IsolatedSide(ready, at, hooked);
    } catch (error) {
      return failing2(key.revision, `in an isolate of its own, ${key.file} failed to load: ${error.message}`);
    }
  }
  /** Close the isolate of `key`: no task after this one needs it. */
  async release(key) {
    const isolate = this.started.get(keyOf(key));
    this.started.delete(keyOf(key));
    if (isolate) await closed(isolate);
  }
  async closeAll() {
    await Promise.all([...this.started.values()].map(closed));
    this.started.clear();
  }
};
function closed(isolate) {
  return isolate.then((started) => started.close()).catch(() => void 0);
}
function keyOf(key) {
  return `${key.revision}\0${key.file}\0${key.unit}`;
}
function failing2(revision, message) {
  const fail = () => Promise.reject(SideFailure.told(revision, message));
  return { revision, hooked: false, warm: fail, setBatch: fail, block: fail, finish: () => Promise.resolve() };
}
var Affinity = class {
  original;
  pinnedNow = false;
  /** False once a pin was asked for and did not take (taskset missing or not permitted). */
  held = true;
  /** Pin to the last of this process's CPUs; no-op when pinned already. */
  pin() {
    if (this.pinnedNow || !this.held) return;
    this.original ??= affinityOf();
    const last = this.original?.split(",").pop()?.split("-").pop();
    if (!last) return void (this.held = os.availableParallelism() < 2);
    this.pinnedNow = setAffinity(last);
    this.held = this.pinnedNow;
  }
  /** Back to the CPUs it had. */
  release() {
    if (!this.pinnedNow || !this.original) return;
    setAffinity(this.original);
    this.pinnedNow = false;
  }
};

// src/measure/micro/shared-state.ts
function intrinsics() {
  const arrayIterator = Object.getPrototypeOf([][Symbol.iterator]());
  return [
    ["Object", Object],
    ["Object.prototype", Object.prototype],
    ["Function.prototype", Function.prototype],
    ["Array", Array],
    ["Array.prototype", Array.prototype],
    ["Array Iterator.prototype", arrayIterator],
    ["Iterator.prototype", Object.getPrototypeOf(arrayIterator)],
    ["String", String],
    ["String.prototype", String.prototype],
    ["Number", Number],
    ["Number.prototype", Number.prototype],
    ["BigInt.prototype", BigInt.prototype],
    ["Boolean.prototype", Boolean.prototype],
    ["Symbol", Symbol],
    ["Promise", Promise],
    ["Promise.prototype", Promise.prototype],
    ["RegExp", RegExp],
    ["RegExp.prototype", RegExp.prototype],
    ["Map.prototype", Map.prototype],
    ["Set.prototype", Set.prototype],
    ["WeakMap.prototype", WeakMap.prototype],
    ["Date", Date],
    ["Date.prototype", Date.prototype],
    ["Error", Error],
    ["JSON", JSON],
    ["Math", Math],
    ["Reflect", Reflect]
  ];
}
var GLOBALS = [
  "Object",
  "Function",
  "Array",
  "String",
  "Number",
  "Boolean",
  "Symbol",
  "BigInt",
  "Promise",
  "RegExp",
  "Map",
  "Set",
  "WeakMap",
  "Date",
  "Error",
  "JSON",
  "Math",
  "Reflect",
  "Proxy",
  "parseInt",
  "parseFloat",
  "encodeURIComponent",
  "decodeURIComponent"
];
function fingerprint() {
  const prints = /* @__PURE__ */ new Map();
  for (const [name, object] of intrinsics()) {
    const own = /* @__PURE__ */ new Map();
    for (const key of Reflect.ownKeys(object)) own.set(key, entry(Object.getOwnPropertyDescriptor(object, key)));
    prints.set(name, own);
  }
  const globals = /* @__PURE__ */ new Map();
  for (const key of GLOBALS) globals.set(key, entry(Object.getOwnPropertyDescriptor(globalThis, key)));
  prints.set("globalThis", globals);
  return prints;
}
function entry(descriptor) {
  if (!descriptor) return [];
  return "value" in descriptor ? [descriptor.value, descriptor.writable] : [descriptor.get, descriptor.set];
}
function changes(before, after, limit = 3) {
  const found = [];
  for (const [name, own] of after) {
    const was = before.get(name) ?? /* @__PURE__ */ new Map();
    const keys = /* @__PURE__ */ new Set([...was.keys(), ...own.keys()]);
    for (const key of keys) {
      const a2 = was.get(key) ?? [];
      const b = own.get(key) ?? [];
      if (a2.length === b.length && a2.every((item, i2) => Object.is(item, b[i2]))) continue;
      const where = `${name === "globalThis" ? "" : `${name}.`}${typeof key === "symbol" ? `[${key.description ?? "symbol"}]` : String(key)}`;
      found.push(`${where} ${a2.length === 0 ? "added" : b.length === 0 ? "deleted" : "replaced"}`);
      if (found.length >= limit) return found;
    }
  }
  return found;
}

// src/measure/micro/load.ts
import { readFileSync as readFileSync7 } from "node:fs";
import path9 from "node:path";
import { pathToFileURL as pathToFileURL6 } from "node:url";

// src/measure/micro/protocol.ts
var ID_SEPARATOR = " > ";
var taskIds = (load) => load.tasks.map((task) => `${load.file}${ID_SEPARATOR}${task}`);
var LOOPS = ["benchgateLoop", "benchgateBatch"];
var INLINED = "(task code inlined into the loop)";

// src/measure/micro/load.ts
var CollectingBench = class extends ae {
  declared = [];
  add(name, fn, opts = {}) {
    this.declared.push({ name, fn, opts });
    return super.add(name, fn, opts);
  }
};
var AS_TASKS = "Declare each scenario as a task instead, e.g.\n  const bench = new Bench()\n  for (const scenario of scenarios) bench.add(scenario.name, () => run(scenario))\n  await bench.run()";
var ACCEPTED_SHAPES = [
  "a benchmark.js suite: new Benchmark.Suite().add('name', fn).run()",
  "a tinybench script: const bench = new Bench(); bench.add('name', fn); await bench.run()",
  "a mitata file: bench('name', fn); await run()",
  "a vitest bench file: describe('suite', () => { bench('name', fn) })",
  "a cronometro file: await cronometro({ name() { ... } })",
  "benchgate's own: export default { 'name': fn } or export default (bench) => { bench.add('name', fn) }"
];
function lateNote(error, file, root) {
  const [message, frame] = describeThrown(error, root).split("\n");
  const own = path9.relative(root, file).split(path9.sep).join("/");
  const from = /\(?((?:[^\s():]+\/)*[^\s():]+\.[cm]?[jt]sx?):\d+:\d+\)?$/.exec(frame?.trim() ?? "")?.[1];
  if (from && from !== own && !from.includes("node_modules"))
    return `while it loaded, ${from} threw (set aside; a timer or callback of that file, not this one's code): ${message}`;
  return `after its tasks were collected it threw (set aside): ${message}`;
}
async function loadBenchFile(file, root) {
  const source = sourceOf(file);
  const unsupported = UNSUPPORTED_HARNESSES.find(({ pattern }) => pattern.test(source))?.name;
  if (unsupported) throw new Error(`it uses ${unsupported}, a harness benchgate does not run. ${AS_TASKS}`);
  const config = looksLikeVitest(source) ? await vitestConfigOf(file, root) : void 0;
  let module = {};
  let thrown;
  const setupErrors = [];
  const declaration = await harnessCapture().declare(file, async () => {
    try {
      const url = harnessCapture().inNewGraph(file);
      const graph = new URL(url).searchParams.get(GRAPH_PARAMETER);
      if (config?.aliases.length) registerAliases({ graph, viteRoot: config.viteRoot, aliases: config.aliases });
      for (const setup of config?.setupFiles ?? [])
        try {
          await import(`${pathToFileURL6(setup).href}?${GRAPH_PARAMETER}=${graph}`);
        } catch (error) {
          setupErrors.push(
            `its setup file ${path9.relative(root, setup).split(path9.sep).join("/")} threw (set aside): ${describeThrown(error, root).split("\n")[0]}`
          );
        }
      module = await import(url);
    } catch (error) {
      thrown = { error };
    }
  });
  const setAside = [...config?.failed ? [config.failed] : [], ...setupErrors];
  const harness = declaration.harnesses[0]?.harness;
  const workers = declaration.workers.map((worker) => path9.relative(root, worker).split(path9.sep).join("/"));
  if (declaration.tasks.length > 0) {
    if (harness === "cronometro" && !thrown) await cronometroSetup(module.default, root);
    const notes = [
      ...setAside,
      ...config?.notes ?? [],
      ...[...declaration.lateErrors, ...thrown ? [thrown.error] : []].map((error) => lateNote(error, file, root))
    ];
    return {
      harness: harness ?? "tinybench",
      harnesses: declaration.harnesses,
      tasks: declaration.tasks.map((task) => ({
        name: [...task.suites, task.name].join(ID_SEPARATOR),
        fn: task.fn,
        opts: task.opts,
        unit: task.unit ?? 0
      })),
      notes,
      workers
    };
  }
  if (declaration.children.length)
    throw new Error(
      `it measures in child processes (${declaration.children.map((child) => path9.relative(root, child)).join(", ")}), which benchgate does not time. ${AS_TASKS}`
    );
  if (thrown) throw setAside.length ? withConfigFailure(thrown.error, setAside.join("; ")) : thrown.error;
  const fromDefault = await defaultExportTasks(module.default);
  if (fromDefault?.length) return { harness: "default export", harnesses: declaration.harnesses, tasks: fromDefault, notes: [], workers };
  const failed = declaration.workerErrors[0];
  if (failed)
    throw new Error(
      `its worker ${path9.relative(root, failed.file).split(path9.sep).join("/")} failed to load: ${describeThrown(failed.error, root)}`
    );
  if (declaration.workers.length)
    throw new Error(`it measures in worker threads (${workers.join(", ")}) and no task was declared there. ${AS_TASKS}`);
  const exported = module.default;
  const what = harness ? `it imports ${harness} but declares no task` : exported !== void 0 && typeof exported !== "object" && typeof exported !== "function" ? `its default export is ${typeof exported}, which declares no task` : "it declares no task";
  throw new Error(`${what}. benchgate accepts:
${ACCEPTED_SHAPES.map((shape) => `  - ${shape}`).join("\n")}`);
}
async function cronometroSetup(exported, root) {
  if (typeof exported !== "function") return;
  try {
    await exported();
  } catch (error) {
    throw new Error(
      `its default export, the setup cronometro runs before its tests, threw: ${describeThrown(error, root).split("\n")[0]}`,
      { cause: error }
    );
  }
}
function withConfigFailure(error, failed) {
  if (!(error instanceof Error)) return error;
  const wrapped = Object.assign(new Error(`${error.message} (${failed})`, { cause: error }), { code: error.code });
  wrapped.name = error.name;
  wrapped.stack = `${error.name}: ${wrapped.message}
${(error.stack ?? "").split("\n").slice(1).join("\n")}`;
  return wrapped;
}
var UNSUPPORTED_HARNESSES = ["bench-node"].map((name) => ({
  name,
  // `from 'x'`, `require('x')` or `import('x')`: the name in a comment or a string of its own is no import.
  pattern: new RegExp(`(?:from\\s*|require\\s*\\(\\s*|import\\s*\\(\\s*)['"]${name}['"]`)
}));
function sourceOf(file) {
  try {
    return readFileSync7(file.startsWith("file:") ? new URL(file) : file, "utf8");
  } catch {
    return "";
  }
}
async function defaultExportTasks(exported) {
  if (isObject2(exported) && exported.__esModule === true && "default" in exported) exported = exported.default;
  if (typeof exported === "function") {
    const bench = new CollectingBench();
    await exported(bench);
    return bench.declared;
  }
  if (!isObject2(exported)) return void 0;
  return Object.entries(exported).map(([name, fn]) => {
    if (typeof fn !== "function") throw new Error(`task '${name}' is ${fn === null ? "null" : typeof fn}, not a function`);
    return { name, fn, opts: {} };
  });
}
function isObject2(value) {
  return typeof value === "object" && value !== null;
}

// src/measure/counts/task.ts
import { closeSync, existsSync as existsSync2, openSync, readFileSync as readFileSync8, readSync, rmSync as rmSync2 } from "node:fs";
import os2 from "node:os";
import v8 from "node:v8";
import vm2 from "node:vm";

// src/measure/counts/functions.ts
import path10 from "node:path";
var INSTRUCTIONS = { Ir: 1 };
var CYCLE_WEIGHTS = { Ir: 1, I1mr: 10, D1mr: 10, D1mw: 10, ILmr: 100, DLmr: 100, DLmw: 100 };
function functionCosts(text, weights = INSTRUCTIONS) {
  const costs = /* @__PURE__ */ new Map();
  let positions = 1;
  let columns = [1];
  let object = "";
  let current2;
  let inner = false;
  let afterCall = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("positions:")) positions = Math.max(1, line.slice(10).trim().split(/\s+/).filter(Boolean).length);
    else if (line.startsWith("events:"))
      columns = line.slice(7).trim().split(/\s+/).map((event) => weights[event] ?? 0);
    else if (line.startsWith("ob=")) object = line.slice(3) === "???" ? "" : line.slice(3);
    else if (line.startsWith("fn=")) {
      inner = /'\d+$/.test(line);
      const name = line.slice(3).replace(/'\d+$/, "");
      const key = `${object}\0${name}`;
      current2 = costs.get(key) ?? { function: name, object, self: 0, inclusive: 0 };
      costs.set(key, current2);
    } else if (line.startsWith("calls=")) {
      afterCall = /^calls=0\b/.test(line) ? "running" : "made";
    } else if (/^[-+*0-9]/.test(line) && current2) {
      const values = line.split(/\s+/);
      const cost = columns.reduce((sum2, weight, i2) => sum2 + (weight ? weight * (Number(values[positions + i2] ?? 0) || 0) : 0), 0);
      if (!afterCall) current2.self += cost;
      if (!inner && afterCall !== "running") current2.inclusive += cost;
      afterCall = false;
    }
  }
  return costs;
}
var PerfMap = class {
  entries;
  constructor(text) {
    const entries = [];
    for (const line of text.split("\n")) {
      const match = /^([0-9a-f]+) ([0-9a-f]+) (.+)$/i.exec(line.trim());
      if (!match) continue;
      const start = Number.parseInt(match[1], 16);
      entries.push({ start, end: start + Number.parseInt(match[2], 16), name: match[3] });
    }
    this.entries = entries;
  }
  /** The name of the code at a callgrind address (`0x000000000d045e00`), the latest entry that holds it. */
  nameOf(address) {
    if (!/^0x[0-9a-f]+$/i.test(address)) return void 0;
    const at = Number.parseInt(address.slice(2), 16);
    for (let i2 = this.entries.length - 1; i2 >= 0; i2--) {
      const entry2 = this.entries[i2];
      if (at >= entry2.start && at < entry2.end) return entry2.name;
    }
    return void 0;
  }
};
function nameCosts(costs, map, root) {
  const named = /* @__PURE__ */ new Map();
  for (const cost of costs) {
    const { name, where } = nameOf(cost, map, root);
    const key = `${where}\0${name}`;
    const entry2 = named.get(key) ?? { function: name, where, self: 0, inclusive: 0 };
    entry2.self += cost.self;
    entry2.inclusive = Math.max(entry2.inclusive, cost.inclusive);
    named.set(key, entry2);
  }
  return [...named.values()];
}
function nameOf(cost, map, root) {
  const mapped = map.nameOf(cost.function);
  if (mapped) {
    const js = /^(?:JS|LazyCompile|Function|Script):[~^+*']*(.*?)(?: (\S+:\d+(?::\d+)?))?$/.exec(mapped);
    if (js && LOOPS.includes(js[1])) return { name: INLINED, where: "JIT" };
    if (js) return { name: js[1] || "(anonymous)", where: js[2] && place(js[2], root) || "JIT" };
    const kind = /^(\w+):(.+)$/.exec(mapped);
    if (kind?.[1] === "RegExp") return { name: `/${kind[2]}/`, where: "regexp" };
    return kind ? { name: kind[2], where: "V8" } : { name: mapped, where: "JIT" };
  }
  if (cost.function.startsWith("Builtins_")) return { name: cost.function.slice("Builtins_".length), where: "V8" };
  if (/^0x[0-9a-f]+$/i.test(cost.function) && !cost.object) return { name: "(JIT code, unnamed)", where: "JIT" };
  const name = shortName(cost.function);
  if (name.startsWith("v8::")) return { name: name.replace(/^v8::(?:internal::)?/, ""), where: "V8" };
  return { name, where: cost.object ? path10.basename(cost.object) : "native" };
}
function shortName(full) {
  if (full.startsWith("(")) return full;
  const symbol = full.replaceAll("(anonymous namespace)", "{anonymous}").replace(/@@?[\w.]+$/, "");
  let depth = 0;
  let open = -1;
  let start = 0;
  for (let i2 = 0; i2 < symbol.length; i2++) {
    const c2 = symbol[i2];
    if (c2 === "<") depth++;
    else if (c2 === ">") depth--;
    else if (c2 === "(" && depth === 0 && open < 0 && i2 > 0) open = i2;
    else if (c2 === " " && depth === 0 && open < 0 && !symbol.slice(0, i2).endsWith("operator")) start = i2 + 1;
  }
  const name = symbol.slice(start, open < 0 ? void 0 : open);
  return name || full;
}
function place(location, root) {
  const match = /^(.*?):(\d+)(?::\d+)?$/.exec(location);
  const file = decoded((match?.[1] ?? location).replace(/^file:\/\//, "").replace(/\?.*$/, ""));
  if (!file) return "";
  const line = match ? `:${match[2]}` : "";
  if (!path10.isAbsolute(file)) return `${file}${line}`;
  const relative = path10.relative(root, file);
  return `${relative.startsWith("..") ? file : relative.split(path10.sep).join("/")}${line}`;
}
function decoded(url) {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}

// src/measure/counts/task.ts
var BLOCK_INSTRUCTIONS = 1e6;
var MEASURED_BLOCKS = 7;
var STEADY_RUN = 2;
var STEADY_TOLERANCE = 5e-3;
var MIN_WARMUP_BLOCKS = 10;
var MAX_WARMUP_BLOCKS = 60;
var MAX_BLOCK_CALLS = 1 << 24;
var COLLECTION_SHARE = 0.1;
var CALL_BLOCKS = {
  blockInstructions: BLOCK_INSTRUCTIONS,
  minWarmupBlocks: MIN_WARMUP_BLOCKS,
  maxWarmupBlocks: MAX_WARMUP_BLOCKS,
  minBatch: 1,
  maxBatch: MAX_BLOCK_CALLS,
  tolerance: STEADY_TOLERANCE,
  holdAfterFall: 0,
  measuredBlocks: MEASURED_BLOCKS,
  estimate: "median"
};
var Counter = class {
  constructor(prefix, figure = "instructions") {
    this.prefix = prefix;
    this.figure = figure;
  }
  prefix;
  figure;
  dumps = 0;
  /** Make callgrind dump the counts since the previous mark; the dump's number. */
  mark() {
    os2.getPriority();
    return ++this.dumps;
  }
  /** The instructions of the segment that dump `n` ended (its file is removed). */
  read(n2) {
    const file = `${this.prefix}.${n2}`;
    this.recorded?.push(file);
    return readDump(file, this.figure, this.recorded !== void 0);
  }
  /**
   * `count` blocks of `run()` back to back after a young collection (so where their scavenges fall depends on them
   * alone, not on what the process allocated before): each block's instructions, its marker's call included.
   */
  async blocks(count, run) {
    const first = await this.marked(count, run);
    return Array.from({ length: count }, (_2, k2) => this.read(first + 1 + k2));
  }
  /** While set, each block's dump is kept, in order, to be read function by function later (a profile's blocks). */
  recorded;
  /** Keep the next blocks' dumps (written with `--compress-strings=no`, callgrindArgs' `functions`). */
  record() {
    this.recorded = [];
  }
  /** The dumps kept since `record()` (the caller reads and removes them); recording stops. */
  takeRecorded() {
    const recorded = this.recorded ?? [];
    this.recorded = void 0;
    return recorded;
  }
  /** Runs `count` marked blocks after a young collection; the number of the mark before the first (its dump removed). */
  async marked(count, run) {
    youngCollection();
    const first = this.mark();
    for (let k2 = 0; k2 < count; k2++) {
      await run();
      this.mark();
    }
    rmSync2(`${this.prefix}.${first}`, { force: true });
    if (existsSync2(`${this.prefix}.${this.dumps + 1}`))
      throw new Error("the task calls os.getPriority(), the marker counts mode dumps at: it cannot be counted (measure it in time)");
    return first;
  }
};
function functionsPerCall(empty, measured, batch) {
  if (!measured.length) return [];
  const medianOf = (of, key, cost) => of.length ? median(of.map((costs) => costs.get(key)?.[cost] ?? 0)) : 0;
  const perCall = [];
  for (const key of new Set(measured.flatMap((costs) => [...costs.keys()]))) {
    const cost = measured.find((costs) => costs.has(key)).get(key);
    const self = (medianOf(measured, key, "self") - medianOf(empty, key, "self")) / batch;
    const inclusive = (medianOf(measured, key, "inclusive") - medianOf(empty, key, "inclusive")) / batch;
    if (self >= 0.5 || inclusive >= 0.5) perCall.push({ ...cost, self, inclusive });
  }
  return perCall.sort((a2, b) => b.self - a2.self);
}
function profileDumps(dumps, figure = "instructions") {
  const weights = figure === "cycles" ? CYCLE_WEIGHTS : INSTRUCTIONS;
  const read2 = (files) => files.map((file) => {
    const costs = functionCosts(readFileSync8(file, "utf8"), weights);
    rmSync2(file, { force: true });
    return costs;
  });
  return functionsPerCall(read2(dumps.empty), read2(dumps.measured), dumps.batch);
}
function readDump(file, figure = "instructions", keep = false) {
  let text;
  try {
    text = dumpHeader(file);
  } catch {
    throw new Error(
      `callgrind wrote no dump at the marker (${file}): this node binary may not export uv_os_getpriority, or the process is not under callgrind`
    );
  }
  if (!keep) rmSync2(file, { force: true });
  const totals = /^(?:totals|summary):((?:\s+\d+)+)/m.exec(text);
  if (!totals) throw new Error(`callgrind's dump ${file} has no totals line`);
  const values = totals[1].trim().split(/\s+/).map(Number);
  const events = /^events:(.*)$/m.exec(text)?.[1]?.trim().split(/\s+/) ?? ["Ir"];
  if (figure === "instructions") return values[Math.max(0, events.indexOf("Ir"))];
  if (!events.includes("D1mr"))
    throw new Error(`callgrind's dump ${file} has no cache events (events: ${events.join(" ")}): cycles need --cache-sim=yes`);
  return events.reduce((sum2, event, i2) => sum2 + (CYCLE_WEIGHTS[event] ?? 0) * (values[i2] ?? 0), 0);
}
var HEADER = Buffer.alloc(16384);
function dumpHeader(file) {
  const fd = openSync(file, "r");
  try {
    const read2 = readSync(fd, HEADER, 0, HEADER.length, 0);
    const summary = HEADER.subarray(0, read2).indexOf("\nsummary:");
    const end = summary < 0 ? -1 : HEADER.subarray(0, read2).indexOf("\n", summary + 1);
    if (end >= 0) return HEADER.toString("latin1", 0, end);
  } finally {
    closeSync(fd);
  }
  return readFileSync8(file, "utf8");
}
var collector;
function collect(options) {
  if (!collector) {
    v8.setFlagsFromString("--expose-gc");
    collector = vm2.runInNewContext("gc");
  }
  collector(options);
}
function youngCollection() {
  collect({ type: "minor", execution: "sync" });
}
function fullCollection() {
  collect({ type: "major", execution: "sync" });
}
async function countTask(loop, counter, sizes = CALL_BLOCKS, profile = false) {
  const blocks = (count, calls) => counter.blocks(count, () => loop(calls));
  const empty = async () => Math.min(...await blocks(3, 0));
  let overhead = await empty();
  let batch = sizes.minBatch;
  for (; ; ) {
    const spent = Math.min(...await blocks(2, batch)) - overhead;
    if (spent < batch && batch >= sizes.maxBatch)
      return { instructions: 0, floor: 0, window: 0, collectionBlocks: 0, calls: 2 * batch, batch, warmupBlocks: 0, steady: false };
    if (spent >= sizes.blockInstructions || batch >= sizes.maxBatch) break;
    const wanted = spent > 0 ? batch * sizes.blockInstructions / spent : batch * 64;
    batch = Math.min(sizes.maxBatch, Math.max(batch * 2, 2 ** Math.ceil(Math.log2(wanted))));
  }
  const perCall = [];
  const floor = (values) => Math.min(...values);
  const agree = (a2, b) => Math.abs(a2 - b) <= sizes.tolerance * Math.min(a2, b);
  const lastFall = () => {
    let lowest2 = Number.POSITIVE_INFINITY;
    let at = 0;
    for (let end = STEADY_RUN; end <= perCall.length; end += STEADY_RUN) {
      const pair = floor(perCall.slice(end - STEADY_RUN, end));
      if (pair >= lowest2) continue;
      if (lowest2 !== Number.POSITIVE_INFINITY && !agree(pair, lowest2)) at = end;
      lowest2 = pair;
    }
    return at;
  };
  const settled2 = () => perCall.length >= Math.max(2 * STEADY_RUN, sizes.minWarmupBlocks, Math.ceil((1 + sizes.holdAfterFall) * lastFall())) && agree(floor(perCall.slice(-STEADY_RUN)), floor(perCall.slice(-2 * STEADY_RUN, -STEADY_RUN)));
  const profiling = profile && counter instanceof Counter;
  let steady;
  let window;
  for (; ; ) {
    steady = false;
    while (perCall.length < sizes.maxWarmupBlocks) {
      perCall.push(...(await blocks(STEADY_RUN, batch)).map((spent) => (spent - overhead) / batch));
      if (settled2()) {
        steady = true;
        break;
      }
    }
    window = await measureWindow();
    const { measured: measured2 } = window;
    const [first, last] = [floor(measured2.slice(0, STEADY_RUN)), floor(measured2.slice(-STEADY_RUN))];
    const shifted = last < first && !agree(first, last);
    if (!steady || !shifted || perCall.length + measured2.length >= sizes.maxWarmupBlocks) {
      if (shifted) steady = false;
      break;
    }
    perCall.push(...measured2);
    if (window.dumps) for (const file of [...window.dumps.empty, ...window.dumps.measured]) rmSync2(file, { force: true });
  }
  async function measureWindow() {
    try {
      if (profiling) counter.record();
      overhead = await empty();
      const emptyDumps = profiling ? counter.takeRecorded() : [];
      if (profiling) counter.record();
      const measured2 = (await blocks(sizes.measuredBlocks, batch)).map((spent) => (spent - overhead) / batch);
      return { measured: measured2, ...profiling ? { dumps: { empty: emptyDumps, measured: counter.takeRecorded(), batch } } : {} };
    } finally {
      if (profiling) counter.takeRecorded();
    }
  }
  const { measured, dumps } = window;
  const lowest = floor(measured);
  const near = lowest > 0 ? measured.filter((x2) => x2 <= (1 + COLLECTION_SHARE) * lowest) : measured;
  const kept = 2 * near.length >= measured.length ? near : measured;
  const whole = kept.reduce((sum2, x2) => sum2 + x2, 0) / kept.length;
  return {
    instructions: sizes.estimate === "window" ? whole : median(measured),
    floor: lowest,
    window: whole,
    collectionBlocks: measured.length - kept.length,
    calls: batch * sizes.measuredBlocks,
    batch,
    warmupBlocks: perCall.length,
    steady,
    ...dumps ? { dumps } : {}
  };
}

// src/measure/counts/callgrind.ts
var perfMapOf = (pid) => `/tmp/perf-${pid}.map`;

// src/measure/micro/runner.ts
function send(message) {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, void 0, {}, () => resolve());
  });
}
var current = "loading bench files";
async function loadSides(sides) {
  const files = [];
  const withWorkers = /* @__PURE__ */ new Set();
  let sharedChanged;
  const byId = /* @__PURE__ */ new Map();
  const workerOf = /* @__PURE__ */ new Map();
  for (const side of sides) {
    for (const file of side.files) {
      current = `loading ${file} (${side.revision})`;
      const before = fingerprint();
      try {
        const { tasks, harness, harnesses, notes, workers } = await loadBenchFile(path11.join(side.root, file), side.root);
        const changed = changes(before, fingerprint());
        if (changed.length)
          sharedChanged ??= `${side.revision}'s ${file} changed builtins that both revisions share in one process (${changed.join(", ")})`;
        for (const worker of workers) workerOf.set(`${side.revision}:${worker}`, file);
        if (workers.length) withWorkers.add(file);
        files.push({ revision: side.revision, file, tasks: tasks.map((task) => task.name), harness, harnesses, notes });
        const declaredInUnit = /* @__PURE__ */ new Map();
        for (const task of tasks) {
          const id = `${file}${ID_SEPARATOR}${task.name}`;
          const list = byId.get(id) ?? [];
          const unit = task.unit ?? 0;
          const at = declaredInUnit.get(unit) ?? 0;
          declaredInUnit.set(unit, at + 1);
          list.push({ revision: side.revision, root: side.root, fn: task.fn, opts: task.opts, unit, at });
          byId.set(id, list);
        }
      } catch (error) {
        files.push({ revision: side.revision, file, tasks: [], error: describeThrown(error, side.root) });
      }
    }
  }
  for (const load of files) {
    const owner = workerOf.get(`${load.revision}:${load.file}`);
    if (!owner) continue;
    for (const id of taskIds(load)) byId.delete(id);
    Object.assign(load, { tasks: [], error: void 0, harness: void 0, workerOf: owner });
  }
  return { files, byId, withWorkers, ...sharedChanged ? { sharedChanged } : {} };
}
async function runLoad(job) {
  const { files } = await loadSides(job.sides);
  await send({ type: "result", files, tasks: [] });
}
async function runJob(job) {
  const { files, byId, withWorkers, sharedChanged } = await loadSides(job.sides);
  const isolating = sharedChanged ? "files" : job.isolates;
  const tasks = [];
  const headAlone = new Set(job.headAlone);
  const declared = [...byId].filter(([id]) => !job.skip.includes(id)).map(([id, sides]) => [id, headAlone.has(id) ? sides.filter((side) => side.revision === "head") : sides]).filter(([, sides]) => sides.length > 0);
  const run = job.reverse ? declared.reverse() : declared;
  const decided = new Set(job.decided);
  const fileOf = (id) => id.slice(0, id.indexOf(ID_SEPARATOR));
  const graph = (id, side) => `${side.revision}:${fileOf(id)}#${side.unit ?? 0}`;
  const lastMeasured = /* @__PURE__ */ new Map();
  run.forEach(([id, sides], at) => {
    if (!decided.has(id)) for (const side of sides) lastMeasured.set(graph(id, side), at);
  });
  const isolated = (id) => isolating === "files" || isolating === "workers" && withWorkers.has(fileOf(id));
  const keyOfSide = (id, side) => ({
    revision: side.revision,
    root: side.root,
    file: fileOf(id),
    unit: side.unit ?? 0
  });
  const lastUse = /* @__PURE__ */ new Map();
  run.forEach(([id, sides], at) => {
    if (!isolated(id)) return;
    const runs = !decided.has(id) || sides.some((side) => (lastMeasured.get(graph(id, side)) ?? -1) > at);
    if (runs) for (const side of sides) lastUse.set(keyOf(keyOfSide(id, side)), at);
  });
  const affinity = new Affinity();
  const isolates = new Isolates(
    // As prepare() set this process up.
    process.sourceMapsEnabled,
    (error) => void fatal(`${error.message} (while running '${current}')`),
    affinity
  );
  const measuring = (id, sides) => {
    if (isolated(id)) affinity.pin();
    else affinity.release();
    return sides;
  };
  const sidesOf = (id, of) => Promise.all(
    of.map(
      (side) => isolated(id) ? isolates.side(
        keyOfSide(id, side),
        side.at ?? 0,
        id.slice(fileOf(id).length + ID_SEPARATOR.length),
        Boolean(side.opts.beforeEach || side.opts.afterEach)
      ) : Promise.resolve(new LocalSide(side))
    )
  );
  try {
    for (const [at, [id, sides]] of run.entries()) {
      current = id;
      if (decided.has(id)) {
        const neighbours = sides.filter((side) => (lastMeasured.get(graph(id, side)) ?? -1) > at);
        if (neighbours.length) await warmUp(id, measuring(id, await sidesOf(id, neighbours)), job, beat(id));
      } else {
        await send({ type: "progress", id });
        const taskTimeMs = job.taskTimes?.[id];
        const settings = taskTimeMs === void 0 ? job.settings : { ...job.settings, taskTimeMs };
        tasks.push(await measureTask(id, measuring(id, await sidesOf(id, sides)), settings, job.batches[id], beat(id)));
      }
      for (const side of sides)
        if (isolated(id) && lastUse.get(keyOf(keyOfSide(id, side))) === at) await isolates.release(keyOfSide(id, side));
    }
  } catch (error) {
    if (error instanceof IsolateCrash) return fatal(`${error.message} (while running '${current}')`);
    throw error;
  } finally {
    await isolates.closeAll();
  }
  const isolatedFiles = [...new Set(run.filter(([id]) => isolated(id)).map(([id]) => fileOf(id)))];
  const reason = sharedChanged && job.isolates !== "files" ? { reason: sharedChanged } : {};
  const isolatedResult = { files: isolatedFiles, pinned: affinity.held, ...reason };
  await send({ type: "result", files, tasks, ...isolatedFiles.length ? { isolated: isolatedResult } : {} });
}
async function runCount(job) {
  const counter = new Counter(job.dumpPrefix, job.figure);
  const { files, byId } = await loadSides(job.sides);
  if (job.late) {
    await send({ type: "instrument" });
    if (readSync2(4, Buffer.alloc(1), 0, 1, null) !== 1) throw new Error("benchgate did not turn callgrind's instrumentation on");
  }
  await counter.blocks(1, () => void 0);
  const counts = [];
  const profiles = /* @__PURE__ */ new Map();
  for (const [id, [task]] of byId) {
    if (job.skip.includes(id) || !task) continue;
    current = id;
    await send({ type: "progress", id });
    if ((task.unit ?? 0) !== 0) {
      counts.push({ id, error: "declared in a worker thread: counts mode counts the main thread's tasks only (use time mode for it)" });
      continue;
    }
    const side = new LocalSide(task);
    fullCollection();
    try {
      const loop = await side.countingLoop();
      const { dumps, ...figures2 } = await countTask(loop, counter, void 0, job.profile?.includes(id));
      if (!(figures2.instructions > 0))
        counts.push({ id, error: `counted ${figures2.instructions} instructions a call beyond an empty block: nothing measurable is left` });
      else {
        counts.push({ id, ...figures2 });
        if (dumps) profiles.set(id, { ...dumps, mapBytes: mapSize(perfMapOf(process.pid)) });
      }
    } catch (error) {
      counts.push({ id, error: error instanceof Error ? error.message : describeThrown(error) });
    } finally {
      await side.finish();
    }
  }
  const mapFile = perfMapOf(process.pid);
  const mapBytes = Buffer.from(profiles.size ? readText(mapFile) : "");
  rmSync3(mapFile, { force: true });
  for (const count of counts) {
    const dumps = profiles.get(count.id);
    if (!dumps) continue;
    const map = new PerfMap(mapBytes.subarray(0, dumps.mapBytes).toString());
    const named = nameCosts(profileDumps(dumps, job.figure), map, job.sides[0].root).sort((a2, b) => b.self - a2.self);
    const bounded = (text) => text.length > MAX_NAME ? `${text.slice(0, MAX_NAME - 1)}\u2026` : text;
    count.functions = named.slice(0, PROFILED_FUNCTIONS).map((f2) => ({
      function: bounded(f2.function),
      where: bounded(f2.where),
      perCall: Math.max(0, f2.self),
      inclusive: Math.max(0, f2.inclusive)
    }));
  }
  await send({ type: "counted", files, counts });
}
var PROFILED_FUNCTIONS = 2e3;
var MAX_NAME = 500;
function mapSize(file) {
  try {
    return statSync3(file).size;
  } catch {
    return 0;
  }
}
function readText(file) {
  try {
    return readFileSync9(file, "utf8");
  } catch {
    return "";
  }
}
function beat(id) {
  const tick = throttled(() => void send({ type: "progress", id }));
  return (revision) => revision ? void send({ type: "progress", id, revision }) : tick();
}
async function warmUp(id, sides, job, heartbeat) {
  await send({ type: "progress", id });
  await measureTask(id, sides, { ...job.settings, taskTimeMs: 0, minBlocks: 0 }, job.batches[id], heartbeat);
}
function throttled(beat2) {
  let last = 0;
  return () => {
    if (performance.now() - last < 250) return;
    last = performance.now();
    beat2();
  };
}
async function runProfile(job) {
  const file = job.sides[0].files[0];
  const id = `${file}${ID_SEPARATOR}${job.task}`;
  const { files, byId } = await loadSides(job.sides);
  const failed = files.find((load) => load.error);
  if (failed) return fatal(`${failed.file} (${failed.revision}) did not load: ${failed.error}`);
  const tasks = byId.get(id) ?? [];
  for (const side of job.sides)
    if (!tasks.some((task) => task.revision === side.revision))
      throw new Error(`${file} (${side.revision}) no longer declares the task '${job.task}'`);
  current = id;
  let profiler;
  const outcome = await runTaskFor(
    tasks,
    job.durationMs,
    {
      open: async () => void (profiler = await startProfiler(job.intervalUs)),
      close: async ({ spans }) => {
        const whole = atSourceFiles(await profiler.stop());
        for (const [revision, part] of splitProfile(whole, spans)) writeFileSync(job.outFiles[revision], JSON.stringify(part));
      }
    },
    throttled(() => void send({ type: "progress", id: current }))
  );
  if ("error" in outcome) return fatal(outcome.error);
  await send({ type: "profiled", calls: outcome.calls });
}
function atSourceFiles(profile) {
  for (const node of profile.nodes) {
    const { callFrame } = node;
    const loaded = callFrame.url;
    callFrame.url = withoutGraph(loaded);
    if (!isTypeScript(callFrame.url)) continue;
    const map = findSourceMap(loaded) ?? (loaded.startsWith("file:") ? findSourceMap(fileURLToPath4(loaded)) : void 0);
    if (!map) continue;
    const entry2 = map.findEntry(callFrame.lineNumber, callFrame.columnNumber);
    if ("originalLine" in entry2) Object.assign(callFrame, { lineNumber: entry2.originalLine, columnNumber: entry2.originalColumn });
    for (const tick of node.positionTicks ?? []) {
      const line = map.findEntry(tick.line - 1, Number.MAX_SAFE_INTEGER);
      if ("originalLine" in line) tick.line = line.originalLine + 1;
    }
  }
  return profile;
}
async function fatal(message) {
  await send({ type: "fatal", message });
  process.exit(1);
}
function prepare(job) {
  jobSides = job.sides;
  const files = job.sides.flatMap((side) => side.files);
  installCapture(
    files.some((file) => /\.[cm]?tsx?$/.test(file)),
    "kind" in job && job.kind === "count" ? inThreadHooks : void 0
  );
}
var doing = () => current.startsWith("loading") ? current : `running '${current}'`;
var jobSides = [];
function thrownOutside(kind, error) {
  const frames = error instanceof Error && error.stack ? error.stack.split("\n").filter((line) => line.trimStart().startsWith("at ")) : [];
  const benchFileOf = (frame) => {
    for (const side of jobSides)
      for (const file of side.files) {
        const at = path11.join(side.root, file);
        const url = pathToFileURL7(at).href;
        if (frame.includes(`${at}:`) || frame.includes(`${url}:`) || frame.includes(`${url}?`)) return { side, file };
      }
    return void 0;
  };
  const from = frames.map(benchFileOf).find((hit) => hit !== void 0);
  const running = jobSides.flatMap((side) => side.files).find((file) => current.startsWith(`loading ${file} (`) || current.startsWith(`${file}${ID_SEPARATOR}`));
  const elsewhere = from && from.file !== running ? `, from ${from.file} (a timer or callback it left running)` : "";
  const roots = from ? [from.side.root] : jobSides.map((side) => side.root);
  const text = roots.map((root) => describeThrown(error, root)).find((shown) => /\n {4}at [^\n]*$/.test(shown)) ?? describeThrown(error);
  return `${kind} while ${doing()}${elsewhere}: ${text}`;
}
process.on("uncaughtException", (error) => void (harnessCapture().lateError(error) || fatal(thrownOutside("uncaught exception", error))));
process.on("unhandledRejection", (error) => void (harnessCapture().lateError(error) || fatal(thrownOutside("unhandled rejection", error))));
process.once("disconnect", () => process.exit(1));
process.once("message", (job) => {
  prepare(job);
  (!("kind" in job) ? runJob(job) : job.kind === "profile" ? runProfile(job) : job.kind === "count" ? runCount(job) : runLoad(job)).then(
    // Bench files may leave timers or sockets open: the result is sent, so leave now.
    () => process.exit(0),
    (error) => fatal(`error while ${doing()}: ${describeThrown(error)}`)
  );
});
void send({ type: "ready" });
