// The message log's groups (see messageList.ts): group k holds the views order[k * GROUP .. (k + 1) * GROUP - 1], and
// carries content-visibility:auto with the sum of its members' estimates, so a scroll checks about 40 groups against
// the viewport each frame instead of every message (issue 22). Only the newest groups are `open` (their messages are
// checked each, messages.css): a new closed group showed the first page's messages blank for two frames.
import { h } from './dom';
import type { MessageView } from './messageView';

/** Messages per group; the list's chunk of older messages is a multiple, so mounting fills whole groups. */
export const GROUP = 25;
/** What a message's box adds to its estimated content height: padding and border (messages.css). */
const BOX_EXTRA = 17;

interface Group {
  el: HTMLElement;
  /** The sum of its mounted members' estimates: its placeholder height until it is laid out. */
  estimate: number;
}

export class MessageGroups {
  private groups: Group[] = [];

  /** Forgets every group (the list's element is emptied by its owner). */
  clear(): void {
    this.groups = [];
  }

  /** Puts `view`, order[index], at the end of its group; appends the group to `parent` if it is new. */
  append(parent: HTMLElement, index: number, view: MessageView): void {
    const group = this.groups[Math.floor(index / GROUP)] ?? this.create(Math.floor(index / GROUP), true);
    if (!group.el.isConnected) parent.append(group.el);
    group.el.append(view.el);
    group.el.dataset.lastRole = view.role;
  }

  /** A message's role changed: the border between groups depends on the role of the message that ends one (messages.css). */
  roleChanged(view: MessageView): void {
    const group = view.isMounted ? view.el.parentElement : null;
    if (group && !view.el.nextElementSibling) group.dataset.lastRole = view.role;
  }

  /**
   * Puts order[from..to) in their groups, above the mounted ones (or, at a reset, into the empty `parent`): the group
   * that holds order[to] may already be mounted with its later members; its earlier ones go before them.
   */
  mount(parent: HTMLElement, order: readonly MessageView[], from: number, to: number, open: boolean, each?: (view: MessageView) => void): void {
    if (from >= to) return;
    const fragment = document.createDocumentFragment();
    for (let k = Math.floor(from / GROUP); k <= Math.floor((to - 1) / GROUP); k++) {
      const end = Math.min(to, (k + 1) * GROUP);
      const group = this.groups[k] ?? this.create(k, open);
      const members = document.createDocumentFragment();
      for (let i = Math.max(from, k * GROUP); i < end; i++) {
        const view = order[i]!;
        members.append(view.el);
        each?.(view);
      }
      group.el.prepend(members);
      if (!group.el.isConnected) {
        group.el.dataset.lastRole = (group.el.lastElementChild as HTMLElement | null)?.dataset.role ?? '';
        fragment.append(group.el);
      }
    }
    parent.prepend(fragment);
  }

  /** Adds order[from..to)'s estimates to their groups' placeholder heights (a group laid out once remembers its own). */
  size(order: readonly MessageView[], from: number, to: number, perLine: number): void {
    for (let k = Math.floor(from / GROUP); k <= Math.floor((to - 1) / GROUP) && from < to; k++) {
      const group = this.groups[k]!;
      const end = Math.min(to, (k + 1) * GROUP);
      for (let i = Math.max(from, k * GROUP); i < end; i++) group.estimate += order[i]!.estimateHeight(perLine) + BOX_EXTRA;
      group.el.style.setProperty('contain-intrinsic-size', `auto ${group.estimate}px`);
    }
  }

  /**
   * The unrendered views of order[mountedFrom..] whose boxes reach into [top, bottom]: the first mounted group whose
   * bottom edge is below `top` (boxes are in document order), then the messages of it and of the groups after it that
   * start above `bottom`. Only their boxes are read (a box inside a group that is off screen costs that group's layout).
   */
  unrenderedWithin(order: readonly MessageView[], mountedFrom: number, top: number, bottom: number): MessageView[] {
    const { groups } = this;
    const lo = this.firstReaching(mountedFrom, top);
    const near: MessageView[] = [];
    for (let k = lo; k < groups.length && groups[k]!.el.getBoundingClientRect().top <= bottom; k++) {
      const end = Math.min(order.length, (k + 1) * GROUP);
      for (let i = Math.max(mountedFrom, k * GROUP); i < end; i++) {
        const view = order[i]!;
        if (view.isRendered) continue;
        const r = view.el.getBoundingClientRect();
        if (r.bottom >= top && r.top <= bottom) near.push(view);
      }
    }
    return near;
  }

  /** The first mounted group whose bottom edge is below `top` (a binary search: boxes are in document order). */
  firstReaching(mountedFrom: number, top: number): number {
    const { groups } = this;
    let lo = Math.floor(mountedFrom / GROUP);
    let hi = groups.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (groups[mid]!.el.getBoundingClientRect().bottom < top) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The index of the first mounted message whose bottom edge is below `top`: the group's search, then its members'.
   * Called where layout is clean; the group found reaches `top`, so its members' boxes are laid out already.
   */
  firstMessageReaching(order: readonly MessageView[], mountedFrom: number, top: number): number {
    const k = this.firstReaching(mountedFrom, top);
    let lo = Math.max(mountedFrom, k * GROUP);
    let hi = Math.min(order.length, (k + 1) * GROUP) - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (order[mid]!.el.getBoundingClientRect().bottom < top) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Removes the first `count` groups with their messages (whole groups: group k then holds order[k * GROUP ..] again). */
  dropFirst(count: number): void {
    for (const group of this.groups.splice(0, count)) group?.el.remove();
  }

  private create(k: number, open: boolean): Group {
    const group = { el: h('div', { class: open ? 'message-group open' : 'message-group' }), estimate: 0 };
    this.groups[k] = group;
    return group;
  }
}

/** How many characters fit on a line of the log, for placeholder height estimates. */
export function charsPerLine(log: HTMLElement, scroller: HTMLElement): number {
  const width = log.clientWidth || scroller.clientWidth || 400;
  return Math.max(20, Math.floor((width - 32) / 7.5));
}
