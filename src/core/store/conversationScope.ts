// One conversation's view of the store: the log methods act on that conversation, everything else is the store.
// The orchestrator and the parts it builds (its session keeper, its turn outcomes, its shared conversation) write the
// log without naming the conversation, so each gets this view and cannot write into another conversation's log.
import { MAIN_CONVERSATION, type BatonStore } from './types';

export function conversationScope(store: BatonStore, conversation: string = MAIN_CONVERSATION): BatonStore {
  // Everything not overridden is the store itself (the prototype), so state, memories and the rest stay shared.
  const scoped = Object.create(store) as BatonStore;
  return Object.assign(scoped, {
    appendLog: (entry: Parameters<BatonStore['appendLog']>[0]) => store.appendLog({ ...entry, conversation }),
    recentLog: (limit: number) => store.recentLog(limit, conversation),
    logHeads: (limit: number) => store.logHeads(limit, conversation),
    markInterrupted: (which?: Parameters<BatonStore['markInterrupted']>[0]) => store.markInterrupted(which, conversation),
    clearLog: () => store.clearLog(conversation),
  } satisfies Partial<BatonStore>);
}
