import { createRequire as __benchgateRequire } from 'node:module'; const require = __benchgateRequire(import.meta.url);

// src/measure/micro/harness/hooks.ts
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import vm from "node:vm";

// src/measure/micro/harness/packages.ts
var HARNESS_PACKAGES = ["benchmark", "tinybench", "mitata", "vitest", "cronometro"];
var GRAPH_PARAMETER = "benchgate-graph";

// src/measure/micro/harness/typescript-files.ts
var isTypeScript = (pathOrUrl) => /\.(?:ts|mts|cts)$/.test(pathOrUrl.replace(/[?#].*$/s, ""));

// src/measure/micro/harness/hooks.ts
var SCHEME = "benchgate-harness:";
var REQUIRE_SCHEME = `${SCHEME}require:`;
async function settle(steps) {
  let sent = { value: void 0 };
  for (; ; ) {
    const step = "error" in sent ? steps.throw(sent.error) : steps.next(sent.value);
    if (step.done) return step.value;
    try {
      sent = { value: await step.value() };
    } catch (error) {
      sent = { error };
    }
  }
}
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
function resolve(specifier, context, next) {
  return settle(resolveSteps(specifier, context, next));
}
function load(url, context, next) {
  return settle(loadSteps(url, context, next, () => import(transformUrl)));
}
function inThreadHooks(data) {
  initialize(data);
  const requireTransform = () => createRequire(import.meta.url)(fileURLToPath(transformUrl));
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
    return pathToFileURL(createRequire(fileURLToPath(parent)).resolve(name)).href === specifier ? name : void 0;
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
  const extension = path.posix.extname(specifier);
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
  const file = fileURLToPath(url);
  let value;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
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
  const file = fileURLToPath(value);
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
  const file = fileURLToPath(url);
  if (file.endsWith(".tsx")) throw new Error(`${file}: JSX in TypeScript bench files is not supported`);
  transform ??= yield loadTransform;
  const { code } = transform.transformTypeScript(readFileSync(file, "utf8"), file);
  return { format: typeScriptFormat(file, code), source: code, shortCircuit: true };
}
function typeScriptFormat(file, code) {
  if (file.endsWith(".mts")) return "module";
  if (file.endsWith(".cts")) return "commonjs";
  const type = packageType(path.dirname(file));
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
  for (let current = dir; ; current = path.dirname(current)) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(current, "package.json"), "utf8"));
      return typeof manifest.type === "string" ? manifest.type : "none";
    } catch {
      if (path.dirname(current) === current) return void 0;
    }
  }
}
export {
  inThreadHooks,
  initialize,
  load,
  resolve
};
