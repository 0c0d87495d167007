/**
 * Loads a workflow bundle's workflow modules once, in a context with the globals Temporal's
 * sandbox has, when a worker starts: a module that fails as it loads (a global the sandbox lacks,
 * such as `TransformStream`) would fail every workflow task of every run, each as a retried task
 * nobody sees. Here it stops the worker at start, naming the global and the module. Node-only.
 */
import assert from 'node:assert';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import vm from 'node:vm';
import { WorkflowBundleError } from './workflow-bundle.js';

/** Bundles already checked in this process, by hash: test suites start many workers on one bundle. */
const checked = new Set<string>();

/** How long loading the modules may take (Temporal's own isolate limit per activation). */
const LOAD_TIMEOUT_MS = 5_000;

/**
 * Throws WorkflowBundleError when the bundle's workflow modules fail to load for want of a global
 * (a ReferenceError). Other errors are left to the workflow: a module may use workflow APIs as it
 * loads, which only a real workflow context answers.
 */
export async function checkWorkflowBundle(
  bundle: { readonly code: string } | { readonly codePath: string },
): Promise<void> {
  const code = 'code' in bundle ? bundle.code : await readFile(bundle.codePath, 'utf8');
  const hash = createHash('sha256').update(code).digest('hex');
  if (checked.has(hash)) return;
  // The globals Temporal's worker gives the sandbox (@temporalio/worker's injectGlobals); nothing else.
  const context = vm.createContext({
    URL,
    URLSearchParams,
    assert,
    TextEncoder,
    TextDecoder,
    AbortController,
    console,
    __webpack_module_cache__: {},
  });
  try {
    vm.runInContext(code, context, { timeout: LOAD_TIMEOUT_MS });
    vm.runInContext('__TEMPORAL__.importWorkflows()', context, { timeout: LOAD_TIMEOUT_MS });
  } catch (error) {
    if ((error as Error)?.name !== 'ReferenceError') return;
    const message = String((error as Error).message);
    const module = /at (\.\/[^\s)]+)/.exec(String((error as Error).stack))?.[1];
    throw new WorkflowBundleError(
      `The workflow bundle fails as it loads, so every workflow task would fail: ${message}${module ? ` (in ${module})` : ''}. ` +
        "Workflow code runs in Temporal's sandbox, which has no Node or web APIs beyond URL, TextEncoder/TextDecoder and AbortController. " +
        'Import what needs them only where tools run (their execute, in the worker), or import only types (`import type`).',
      [],
    );
  }
  checked.add(hash);
}
