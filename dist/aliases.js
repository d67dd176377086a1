import { createRequire as __benchgateRequire } from 'node:module'; const require = __benchgateRequire(import.meta.url);

// src/measure/micro/harness/aliases.ts
import { statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
var own = { root: "", aliases: [] };
function initialize(data) {
  own = data;
}
function resolve(specifier, context, next) {
  return next(aliased(own, specifier, context.parentURL) ?? specifier, context);
}
function inThreadAliases(data) {
  return { resolve: (specifier, context, next) => next(aliased(data, specifier, context.parentURL) ?? specifier, context) };
}
function aliased(data, specifier, parent) {
  if (!parent?.startsWith("file:") || !data.aliases.length) return void 0;
  const from = fileURLToPath(parent.replace(/[?#].*$/, ""));
  const relative = path.relative(data.root, from);
  if (relative.startsWith("..") || path.isAbsolute(relative) || relative.split(path.sep).includes("node_modules")) return void 0;
  const alias = data.aliases.find(({ find }) => matches(find, specifier));
  if (!alias) return void 0;
  const replaced = specifier.replace(alias.find, alias.replacement);
  if (!path.isAbsolute(replaced)) return replaced;
  const found = existing(replaced) ?? (replaced.startsWith("/") ? existing(path.join(data.root, replaced)) : void 0);
  return found ? pathToFileURL(found).href : replaced;
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
  const isFile = (candidate) => statSync(candidate, { throwIfNoEntry: false })?.isFile() === true;
  if (isFile(file)) return file;
  for (const extension of EXTENSIONS) if (isFile(file + extension)) return file + extension;
  for (const extension of EXTENSIONS) if (isFile(path.join(file, `index${extension}`))) return path.join(file, `index${extension}`);
  return void 0;
}
export {
  aliased,
  inThreadAliases,
  initialize,
  resolve
};
