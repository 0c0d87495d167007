import { describe, expect, it } from 'vitest';
import { requirePeer } from './require-peer.js';

describe('requirePeer', () => {
  it('loads what is there', async () => {
    expect(await requirePeer('@a2a-js/sdk', 'cairn-agents/a2a', async () => 42)).toBe(42);
  });

  it('says in one line which optional peer is missing and how to install it', async () => {
    const missing = Object.assign(new Error("Cannot find package '@a2a-js/sdk' imported from /app/node_modules/cairn-agents/dist/client/a2a/a2a-task.js"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(requirePeer('@a2a-js/sdk', 'cairn-agents/a2a', () => Promise.reject(missing))).rejects.toThrow('cairn-agents/a2a needs the optional peer dependency @a2a-js/sdk: npm install @a2a-js/sdk');
  });

  it('lets other failures through as they are', async () => {
    const other = Object.assign(new Error("Cannot find package 'something-else'"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(requirePeer('@a2a-js/sdk', 'cairn-agents/a2a', () => Promise.reject(other))).rejects.toBe(other);
  });
});
