/** Request bodies: 400 for what is not a JSON object, 422 naming the field that does not fit. */
import { describe, expect, it } from 'vitest';
import { HttpError } from './http-error.js';
import { answerBody, chatBody, messageBody, parseBody, startRunBody } from './request-bodies.js';

function refusal(act: () => unknown): { status: number; code: string; message: string } {
  try {
    act();
  } catch (error) {
    expect(HttpError.isInstance(error)).toBe(true);
    const e = error as HttpError;
    return { status: e.status, code: e.code, message: e.message };
  }
  throw new Error('not refused');
}

describe('parseBody', () => {
  it.each([
    ['an array', startRunBody, [], 400, 'invalid_request', /as a JSON object/],
    ['no prompt', startRunBody, {}, 422, 'invalid_input', /"prompt" is text/],
    ['a blank prompt', startRunBody, { prompt: '  ' }, 422, 'invalid_input', /"prompt" is non-empty text/],
    ['a number as answer', answerBody, { answer: 5 }, 422, 'invalid_input', /An answer is non-empty text or an object/],
    [
      'a question id that is not text',
      answerBody,
      { answer: 'x', questionId: 3 },
      422,
      'invalid_input',
      /"questionId" is text/,
    ],
    ['an empty message', messageBody, { text: '' }, 422, 'invalid_input', /"text" is non-empty text/],
    [
      'an update id too long',
      messageBody,
      { text: 'hi', updateId: 'u'.repeat(201) },
      422,
      'invalid_input',
      /"updateId" is text of 1 to 200 characters/,
    ],
    ['no chat messages', chatBody, { id: 'c', messages: [] }, 422, 'invalid_input', /"messages" is a non-empty array/],
    [
      'a chat message without parts',
      chatBody,
      { id: 'c', messages: [{ role: 'user' }] },
      422,
      'invalid_input',
      /"messages\.0\.parts"/,
    ],
  ] as const)('%s', (_, schema, body, status, code, message) => {
    const refused = refusal(() => parseBody(schema, body, 'the body'));
    expect(refused).toMatchObject({ status, code });
    expect(refused.message).toMatch(message);
  });

  it('gives back what fits, unknown keys of a UI message kept', () => {
    expect(
      parseBody(
        chatBody,
        { id: 'c', messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'hi' }], metadata: 1 }] },
        'x',
      ).messages[0],
    ).toMatchObject({ metadata: 1, parts: [{ text: 'hi' }] });
  });
});
