import { createRequire as __benchgateRequire } from 'node:module'; const require = __benchgateRequire(import.meta.url);

// src/measure/micro/harness/aliases.ts
import path from "node:path";
import { pathToFileURL } from "node:url";

// src/util/manifest.ts
import { readFileSync, statSync } from "node:fs";
function isFile(file) {
  return statSync(file, { throwIfNoEntry: false })?.isFile() === true;
}

// src/measure/micro/harness/packages.ts
var GRAPH_PARAMETER = "benchgate-graph";

// src/measure/micro/harness/aliases.ts
var own = { graph: "", viteRoot: "", aliases: [] };
function initialize(data) {
  own = data;
}
function resolve(specifier, context, next) {
  return next(aliased(own, specifier, context.parentURL) ?? specifier, context);
}
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
      const found = path.isAbsolute(replaced) ? existing(replaced) ?? (replaced.startsWith("/") ? existing(path.join(data.viteRoot, replaced)) : void 0) : void 0;
      if (found) return pathToFileURL(found).href;
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
  for (const extension of EXTENSIONS) if (isFile(path.join(file, `index${extension}`))) return path.join(file, `index${extension}`);
  return void 0;
}
export {
  aliased,
  existing,
  inThreadAliases,
  initialize,
  resolve
};
