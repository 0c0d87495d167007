/**
 * The AI SDK's own chat engine, as `useChat` runs it: `AbstractChat` with a plain in-memory
 * state (what a React or Vue binding keeps in its store). Every change of a message is recorded,
 * so a test can follow a tool part through its states.
 */
import { AbstractChat, type ChatInit, type ChatState, type ChatStatus, type UIMessage } from 'ai';

class MemoryState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[];
  /** Every message as it was written, in order. */
  readonly writes: UIMessage[] = [];

  constructor(messages: UIMessage[] = []) {
    this.messages = messages;
  }

  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
    this.writes.push(structuredClone(message));
  };

  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };

  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
    this.writes.push(structuredClone(message));
  };

  snapshot = <T>(thing: T): T => structuredClone(thing);
}

export class TestChat extends AbstractChat<UIMessage> {
  readonly memory: MemoryState;

  constructor(init: Omit<ChatInit<UIMessage>, 'messages'> & { readonly messages?: UIMessage[] }) {
    const memory = new MemoryState(init.messages);
    super({ ...init, state: memory });
    this.memory = memory;
  }

  /** Waits until the chat is idle again and `done` holds (automatic sends included). */
  async settled(done: (chat: TestChat) => boolean = () => true): Promise<void> {
    for (;;) {
      if ((this.status === 'ready' || this.status === 'error') && done(this)) return;
      if (this.status === 'error') throw this.error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
