/**
 * Optional peers load only in the entry point that needs them, with one clear line when missing
 * (`@a2a-js/sdk` for `cairn-agents/a2a`). Node-only.
 */
export async function requirePeer<T>(name: string, entry: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes(name))
      throw new Error(`${entry} needs the optional peer dependency ${name}: npm install ${name}`, { cause: error });
    throw error;
  }
}
