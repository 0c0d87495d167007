/**
 * The built-ins Cairn's workflow code uses most, as this module's own bindings. In the workflow
 * sandbox (a node:vm context) every global name is looked up through the context's interceptors,
 * ~60× slower than a variable: `Math.imul` in a loop made hashing a transcript take milliseconds.
 * runtime/workflow-bundle.ts makes the bundle's free uses of these names read them from here
 * (webpack's ProvidePlugin: one lookup per module instead of one per use). Only objects whose
 * identity never changes: the SDK patches `Math.random` on `Math` itself, and replaces `Date`,
 * `setTimeout` and the weak references on the global (never taken from here).
 * Workflow-safe, deterministic.
 */
const builtins = globalThis;
const math = builtins.Math;
const json = builtins.JSON;
const object = builtins.Object;
const array = builtins.Array;
const number = builtins.Number;
const string = builtins.String;
const symbol = builtins.Symbol;
const reflect = builtins.Reflect;
const map = builtins.Map;
const set = builtins.Set;
const promise = builtins.Promise;
const error = builtins.Error;
const typeError = builtins.TypeError;
const regExp = builtins.RegExp;

// Exported under the built-ins' own names: the names webpack's ProvidePlugin binds.
export {
  math as Math,
  json as JSON,
  object as Object,
  array as Array,
  number as Number,
  string as String,
  symbol as Symbol,
  reflect as Reflect,
  map as Map,
  set as Set,
  promise as Promise,
  error as Error,
  typeError as TypeError,
  regExp as RegExp,
};
