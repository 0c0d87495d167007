/**
 * A zod schema built on first use, not at module load. Workflow-side modules are evaluated again
 * for every run (the SDK keeps module state per run), and zod building schemas was most of that
 * (docs/bench.md, "Workflow tasks by kind"): a schema a run never uses now costs it nothing.
 *
 * With `sharedAs`, the schema is also kept by that name in this module, which
 * runtime/workflow-bundle.ts preloads: in a worker's workflow thread it is built once, by the first
 * run that uses it, and later runs reuse it. Only for a schema with no `.describe()` or `.meta()`
 * anywhere in it: zod keeps those in a registry of each run's own, so another run would not see
 * them (its JSON Schema would differ). `build` must return the same schema every time (no per-run
 * state), and the schema is never mutated. Workflow-safe, deterministic.
 */

/** Schemas built so far with `sharedAs`: one map per workflow thread when this module is preloaded. */
const shared = new Map<string, object>();

/** Options of lazySchema. */
export interface LazySchemaOptions {
  /** Keep the schema under this name for every run of the thread (e.g. `'cairn.runInput'`); unique per schema. */
  readonly sharedAs?: string;
}

/** A stand-in for the schema `build` returns, typed as it and behaving as it: its first use builds it. */
export function lazySchema<T extends object>(build: () => T, options: LazySchemaOptions = {}): T {
  const { sharedAs } = options;
  let schema: T | undefined;
  const real = (): T => {
    if (schema) return schema;
    schema = sharedAs === undefined ? undefined : (shared.get(sharedAs) as T | undefined);
    if (!schema) {
      schema = build();
      if (sharedAs !== undefined) shared.set(sharedAs, schema);
    }
    return schema;
  };
  // The target stays empty and extensible, so no trap below can break a Proxy invariant.
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(real(), key),
    set: (_, key, value) => Reflect.set(real(), key, value),
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}
