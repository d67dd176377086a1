import { createRequire as __benchgateRequire } from 'node:module'; const require = __benchgateRequire(import.meta.url);

// src/measure/micro/isolate.ts
import path9 from "node:path";
import { parentPort, workerData } from "node:worker_threads";

// node_modules/simple-statistics/dist/simple-statistics.mjs
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
  var sum = z3;
  var tmp = z3;
  for (var i2 = 1; i2 < 30; i2++) {
    tmp *= z3 * z3 / (2 * i2 + 1);
    sum += tmp;
  }
  return Math.round((0.5 + sum / SQRT_2PI$1 * Math.exp(-z3 * z3 / 2)) * 1e4) / 1e4;
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
    const collect = (suite) => {
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
      collect(this);
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
  wrapRequire(answer2) {
    const internal = Module;
    const load = internal._load;
    const inGraphOf = this.inGraphOf.bind(this);
    internal._load = function(request, parent, isMain) {
      const harness = HARNESS_PACKAGES.includes(request) && parent?.filename && !parent.filename.includes(`${path3.sep}node_modules${path3.sep}`);
      return inGraphOf(parent, () => {
        if (!harness) return load.call(this, request, parent, isMain);
        return answer2(request, internal._resolveFilename(request, parent), () => load.call(this, request, parent, isMain));
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
    const collect = (bench) => {
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
          collect(this);
          return Promise.resolve(this.tasks);
        };
    if (typeof proto.runSync === "function")
      proto.runSync = function() {
        collect(this);
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
    return Object.fromEntries(Object.entries(scripts).filter((entry) => typeof entry[1] === "string"));
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
function inThreadAliases(data2) {
  return {
    resolve: (specifier, context, next) => Array.from(context.conditions ?? []).includes("require") && !/\.[cm]?tsx?(\?|$)/.test(context.parentURL ?? "") ? next(specifier, context) : next(aliased(data2, specifier, context.parentURL) ?? specifier, context)
  };
}
function aliased(data2, specifier, parent) {
  if (!parent?.startsWith("file:") || !data2.aliases.length) return void 0;
  const url = new URL(parent);
  if (url.searchParams.get(GRAPH_PARAMETER) !== data2.graph || url.pathname.includes("/node_modules/")) return void 0;
  for (const alias of data2.aliases) {
    if (!matches(alias.find, specifier)) continue;
    if (alias.ifFound && /^(\.|\/|[a-z]+:)/.test(specifier)) continue;
    const replacements = typeof alias.replacement === "string" ? [alias.replacement] : alias.replacement;
    for (const replacement of replacements) {
      if (alias.find instanceof RegExp) alias.find.lastIndex = 0;
      const replaced = specifier.replace(alias.find, replacement);
      const found = path5.isAbsolute(replaced) ? existing(replaced) ?? (replaced.startsWith("/") ? existing(path5.join(data2.viteRoot, replaced)) : void 0) : void 0;
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
  const setupFiles = (typeof setup === "string" ? [setup] : Array.isArray(setup) ? setup : []).filter((entry) => typeof entry === "string").map((entry) => setupFile(entry, viteRoot));
  defineGlobals(config.define, file, name, root, notes);
  return { file, aliases, viteRoot, setupFiles, notes };
}
function setupFile(entry, viteRoot) {
  if (!/^(\.|\/)/.test(entry))
    try {
      return createRequire(path6.join(viteRoot, "noop.js")).resolve(entry);
    } catch {
    }
  const file = path6.resolve(viteRoot, entry);
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
  for (const entry of entries) {
    const { find, replacement, customResolver } = isObject(entry) ? entry : {};
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
    const collect = async (suite) => {
      for (let i2 = 0; i2 < suite.children.length; i2++) {
        const child = suite.children[i2];
        this.suiteStack.push(child);
        try {
          await child.factory?.();
        } finally {
          this.suiteStack.pop();
        }
        await collect(child);
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
      if (parent.parent === void 0 && parent.children.length === 1) this.capture.later(() => collect(parent));
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
    const start = (worker, port2, filename, options) => this.startWorker(worker, port2, filename, options);
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
  startWorker(worker, port2, filename, options) {
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
    Object.assign(port2, {
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
        await this.runWorker(file, threadId, unit, options.workerData, port2);
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
  async runWorker(file, threadId, unit, workerData2, port2) {
    const builtin = workerThreads;
    const saved = {
      workerData: builtin.workerData,
      parentPort: builtin.parentPort,
      isMainThread: builtin.isMainThread,
      threadId: builtin.threadId
    };
    Object.assign(builtin, { workerData: structuredClone(workerData2), parentPort: port2, isMainThread: false, threadId });
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
  later(collect) {
    const unit = this.unit;
    this.current?.pending.push(async () => (await collect()).map((task) => ({ unit, ...task })));
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
import * as nodeModule from "node:module";
function installCapture(sourceMaps, inThread) {
  if (sourceMaps) process.setSourceMapsEnabled(true);
  const data2 = { transform: new URL("./typescript.js", import.meta.url).href };
  const registerHooks2 = nodeModule.registerHooks;
  registerInThread = inThread && typeof registerHooks2 === "function" ? registerHooks2 : void 0;
  if (registerInThread) registerInThread(inThread(data2));
  else nodeModule.register(new URL("./hooks.js", import.meta.url), { data: data2 });
  harnessCapture();
}
var registerInThread;
var aliasRegistrations = 0;
function registerAliases(data2) {
  if (registerInThread) registerInThread(inThreadAliases(data2));
  else nodeModule.register(new URL(`./aliases.js?registration=${++aliasRegistrations}`, import.meta.url), { data: data2 });
}

// src/measure/micro/load.ts
import { readFileSync as readFileSync6 } from "node:fs";
import path8 from "node:path";
import { pathToFileURL as pathToFileURL5 } from "node:url";

// src/measure/micro/protocol.ts
var ID_SEPARATOR = " > ";

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
  const own = path8.relative(root, file).split(path8.sep).join("/");
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
          await import(`${pathToFileURL5(setup).href}?${GRAPH_PARAMETER}=${graph}`);
        } catch (error) {
          setupErrors.push(
            `its setup file ${path8.relative(root, setup).split(path8.sep).join("/")} threw (set aside): ${describeThrown(error, root).split("\n")[0]}`
          );
        }
      module = await import(url);
    } catch (error) {
      thrown = { error };
    }
  });
  const setAside = [...config?.failed ? [config.failed] : [], ...setupErrors];
  const harness = declaration.harnesses[0]?.harness;
  const workers = declaration.workers.map((worker) => path8.relative(root, worker).split(path8.sep).join("/"));
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
      `it measures in child processes (${declaration.children.map((child) => path8.relative(root, child)).join(", ")}), which benchgate does not time. ${AS_TASKS}`
    );
  if (thrown) throw setAside.length ? withConfigFailure(thrown.error, setAside.join("; ")) : thrown.error;
  const fromDefault = await defaultExportTasks(module.default);
  if (fromDefault?.length) return { harness: "default export", harnesses: declaration.harnesses, tasks: fromDefault, notes: [], workers };
  const failed = declaration.workerErrors[0];
  if (failed)
    throw new Error(
      `its worker ${path8.relative(root, failed.file).split(path8.sep).join("/")} failed to load: ${describeThrown(failed.error, root)}`
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
    return readFileSync6(file.startsWith("file:") ? new URL(file) : file, "utf8");
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

// src/measure/micro/isolate.ts
var data = workerData;
var port = parentPort;
var post = (message) => port.postMessage(message);
for (const event of ["uncaughtException", "unhandledRejection"])
  process.on(
    event,
    (error) => void (harnessCapture().lateError(error) || post({ type: "crashed", message: describeThrown(error, data.root) }))
  );
async function main() {
  installCapture(data.sourceMaps);
  harnessCapture().onlyUnit = data.unit;
  let tasks;
  try {
    const loaded = await loadBenchFile(path9.join(data.root, data.file), data.root);
    tasks = loaded.tasks.filter((task) => (task.unit ?? 0) === data.unit);
  } catch (error) {
    return post({ type: "failed to load", message: describeThrown(error, data.root) });
  }
  const sides = tasks.map((task) => new LocalSide({ revision: data.revision, root: data.root, fn: task.fn, opts: task.opts }));
  port.on("message", (request) => {
    void answer(sides[request.task], request).then(
      (value) => post({ type: "reply", seq: request.seq, ...value === void 0 ? {} : { value } }),
      (error) => post({
        type: "reply",
        seq: request.seq,
        failure: error instanceof SideFailure ? error.message : `benchgate failed in the isolate: ${describeThrown(error)}`
      })
    );
  });
  post({ type: "loaded", tasks: tasks.map((task) => task.name) });
}
async function answer(side, request) {
  if (request.op === "drain") return new Promise((resolve) => setTimeout(() => setImmediate(resolve), 0));
  if (!side) throw SideFailure.told(data.revision, `no task #${request.task} in this isolate`);
  switch (request.op) {
    case "warm":
      return side.warm();
    case "batch":
      return side.setBatch(request.batch);
    case "block":
      return side.block(request.iterations);
    case "finish":
      return side.finish();
  }
}
void main();
