import { describe, expect, it } from 'vitest';
import { thinkingOf, visibleText, withThinking } from './think-block.js';

describe('think blocks', () => {
  it('shows a person the text without any think block, closed or cut, in any letter case', () => {
    expect(visibleText('<think>plan</think> Hello ')).toBe('Hello');
    expect(visibleText('A<THINK>x</Think>B<think>y</think>C')).toBe('ABC');
    expect(visibleText('Answer <think>still thinking when the stream was cut')).toBe('Answer');
    expect(visibleText('no thoughts')).toBe('no thoughts');
  });

  it('puts reasoning in front as one block, leaving out blank parts, and adds none without reasoning', () => {
    expect(withThinking(['step 1', '  ', 'step 2'], 'Done.')).toBe('<think>step 1\nstep 2</think>Done.');
    expect(withThinking([], 'Done.')).toBe('Done.');
    expect(withThinking([' ', ''], 'Done.')).toBe('Done.');
    expect(visibleText(withThinking(['why'], 'Done.'))).toBe('Done.');
  });

  it('reads the reasoning out of every block, closed or cut, in any letter case', () => {
    expect(thinkingOf('<think> plan </think>Hello')).toBe('plan');
    expect(thinkingOf('A<THINK>x</Think>B<think> </think>C<think>y cut')).toBe('x\ny cut');
    expect(thinkingOf('no thoughts')).toBe('');
    expect(thinkingOf(withThinking(['step 1', 'step 2'], 'Done.'))).toBe('step 1\nstep 2');
  });
});
