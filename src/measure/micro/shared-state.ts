/**
 * What both revisions share when they load in one isolate: the builtins. A bench file (or the code it imports)
 * that replaces one, such as a polyfill that wraps JSON.stringify or a method added to Array.prototype,
 * changes it for the other revision too, whose figures then carry head's cost and hide it. The runner takes
 * a fingerprint of the builtins around each file's load and, when one changed, measures every file in
 * isolates of its own (isolates.ts). Written by hand: no library tells which builtins a module changed.
 *
 * What this cannot see: state V8 keeps out of sight, such as its protectors (an array's own `constructor`
 * turns off the species fast path of every map and filter), or a change made only once a task runs.
 * `isolation: thread` isolates every file whatever a fingerprint says.
 */

/** The builtins compared: their own properties, by identity (a replaced function, getter or setter counts). */
function intrinsics(): [string, object][] {
  const arrayIterator = Object.getPrototypeOf([][Symbol.iterator]()) as object;
  return [
    ['Object', Object],
    ['Object.prototype', Object.prototype],
    ['Function.prototype', Function.prototype],
    ['Array', Array],
    ['Array.prototype', Array.prototype],
    ['Array Iterator.prototype', arrayIterator],
    ['Iterator.prototype', Object.getPrototypeOf(arrayIterator) as object],
    ['String', String],
    ['String.prototype', String.prototype],
    ['Number', Number],
    ['Number.prototype', Number.prototype],
    ['BigInt.prototype', BigInt.prototype],
    ['Boolean.prototype', Boolean.prototype],
    ['Symbol', Symbol],
    ['Promise', Promise],
    ['Promise.prototype', Promise.prototype],
    ['RegExp', RegExp],
    ['RegExp.prototype', RegExp.prototype],
    ['Map.prototype', Map.prototype],
    ['Set.prototype', Set.prototype],
    ['WeakMap.prototype', WeakMap.prototype],
    ['Date', Date],
    ['Date.prototype', Date.prototype],
    ['Error', Error],
    ['JSON', JSON],
    ['Math', Math],
    ['Reflect', Reflect],
  ];
}

/** The globals that name builtins: only these of globalThis, since Node defines others lazily (replacing their getters on first use). */
const GLOBALS = [
  'Object',
  'Function',
  'Array',
  'String',
  'Number',
  'Boolean',
  'Symbol',
  'BigInt',
  'Promise',
  'RegExp',
  'Map',
  'Set',
  'WeakMap',
  'Date',
  'Error',
  'JSON',
  'Math',
  'Reflect',
  'Proxy',
  'parseInt',
  'parseFloat',
  'encodeURIComponent',
  'decodeURIComponent',
];

type Entry = unknown;
export type Fingerprint = Map<string, Map<PropertyKey, Entry[]>>;

export function fingerprint(): Fingerprint {
  const prints: Fingerprint = new Map();
  for (const [name, object] of intrinsics()) {
    const own = new Map<PropertyKey, Entry[]>();
    for (const key of Reflect.ownKeys(object)) own.set(key, entry(Object.getOwnPropertyDescriptor(object, key)));
    prints.set(name, own);
  }
  const globals = new Map<PropertyKey, Entry[]>();
  for (const key of GLOBALS) globals.set(key, entry(Object.getOwnPropertyDescriptor(globalThis, key)));
  prints.set('globalThis', globals);
  return prints;
}

function entry(descriptor: PropertyDescriptor | undefined): Entry[] {
  if (!descriptor) return [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- compared by identity, never called
  return 'value' in descriptor ? [descriptor.value, descriptor.writable] : [descriptor.get, descriptor.set];
}

/** What changed between two fingerprints, for people: "JSON.stringify replaced", "Array.prototype.last added". At most `limit`. */
export function changes(before: Fingerprint, after: Fingerprint, limit = 3): string[] {
  const found: string[] = [];
  for (const [name, own] of after) {
    const was = before.get(name) ?? new Map<PropertyKey, Entry[]>();
    const keys = new Set([...was.keys(), ...own.keys()]);
    for (const key of keys) {
      const a = was.get(key) ?? [];
      const b = own.get(key) ?? [];
      if (a.length === b.length && a.every((item, i) => Object.is(item, b[i]))) continue;
      const where = `${name === 'globalThis' ? '' : `${name}.`}${typeof key === 'symbol' ? `[${key.description ?? 'symbol'}]` : String(key)}`;
      found.push(`${where} ${a.length === 0 ? 'added' : b.length === 0 ? 'deleted' : 'replaced'}`);
      if (found.length >= limit) return found;
    }
  }
  return found;
}
