/**
 * A namespace upgraded half-way: it registered CairnAgent and CairnPhase (what older versions
 * asked for) but not CairnTenant and CairnUser. Runs there start without search attributes, so
 * nothing tells the inbox they wait: the client, the inbox (its JSON and its page) and the worker
 * name the attributes missing and the command that registers them, instead of an empty inbox.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { temporal } from '@temporalio/proto';
import { CairnClient, searchAttributesHint } from '../client/cairn-client.js';
import { createCairnHttpHandler } from '../servers/http/cairn-http-handler.js';
import { testAgent } from './fixtures/agents.js';
import { serverAddress } from './support/temporal.js';

let connection: Connection;
let client: Client;
const namespace = `half-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  connection = await Connection.connect({ address: serverAddress() });
  await connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: {
      CairnAgent: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      CairnPhase: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
    },
  });
  client = new Client({ connection, namespace });
});
afterAll(() => connection?.close());

describe('a namespace with only the two older search attributes', () => {
  it('the client names the two missing; the hint registers only those', async () => {
    const cairn = new CairnClient({ client, taskQueue: 'half' });
    expect(await cairn.missingSearchAttributes()).toEqual(['CairnTenant', 'CairnUser']);
    expect(await cairn.hasSearchAttributes()).toBe(false);
    const hint = searchAttributesHint(namespace, ['CairnTenant', 'CairnUser']);
    expect(hint).toContain(`lacks Cairn's search attribute(s) CairnTenant, CairnUser`);
    expect(hint).toContain(`--name CairnTenant --type Keyword && temporal operator`);
    expect(hint).not.toContain('--name CairnAgent');
  });

  it('the inbox says which attributes are missing, in its JSON and on its page', async () => {
    const handler = createCairnHttpHandler({
      client: new CairnClient({ client, taskQueue: 'half' }),
      agents: [testAgent],
    });
    const inbox = (await (await handler(new Request('http://cairn.test/inbox'))).json()) as {
      items: unknown[];
      warning?: string;
    };
    expect(inbox.items).toEqual([]);
    expect(inbox.warning).toMatch(/lacks Cairn's search attribute\(s\) CairnTenant, CairnUser: .*inbox cannot find/);
    const page = await (await handler(new Request('http://cairn.test/'))).text();
    expect(page).toContain('j.warning');
  });
});
