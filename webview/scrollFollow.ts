// Whether the conversation's view follows its newest content, and keeping it there. The view follows while the user
// has not scrolled more than PIN_SLACK away from the bottom; keepInView holds it still while the area above the worker
// strip shrinks, until the conversation itself grows.

/** Distance from the bottom, in px, within which the view keeps following new content. */
const PIN_SLACK = 32;
/** How long after the user's wheel, touch, key or pointer a scroll counts as theirs. */
const USER_SCROLL_MS = 1000;

export class ScrollFollow {
  private followingNow = true;
  /** Set by keepInView: the view does not follow the bottom until the conversation grows. */
  private holding = false;
  /** The scrollTop keepInView left: its own scroll event is not the user leaving the bottom. */
  private heldTop = -1;
  /** The scrollTop the last stick() left: its own scroll event is not the user leaving the bottom. */
  private stuckTop = -1;
  /** When the user last used the wheel, a touch, a key or the pointer in the conversation. */
  private userInputAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly scroller: HTMLElement,
    /** The view started or stopped following (the user scrolled away from the newest content, or back). */
    private readonly changed: (following: boolean) => void,
  ) {}

  get following(): boolean {
    return this.followingNow;
  }

  /** Whether new content should show its end at once (following, and not held by keepInView). */
  get atEnd(): boolean {
    return this.followingNow && !this.holding;
  }

  /** Keeps the newest content in view while the user has not scrolled away from it. */
  stick(): void {
    if (this.holding) return;
    if (!this.followingNow) return;
    this.scroller.scrollTop = this.scroller.scrollHeight;
    this.stuckTop = this.scroller.scrollTop;
  }

  /** Ends keepInView's hold: the conversation grew, or the view was moved on purpose. */
  release(): void {
    this.holding = false;
  }

  /** Sets whether the view follows the newest content, and says so when that changes. */
  set(following: boolean): void {
    if (following === this.followingNow) return;
    this.followingNow = following;
    this.changed(following);
  }

  /** Back to the newest content, following it. */
  toEnd(): void {
    this.holding = false;
    this.set(true);
    this.stick();
  }

  /** The user used the wheel, a touch, a key or the pointer in the conversation: a scroll that follows is theirs. */
  userInput(): void {
    this.userInputAt = performance.now();
  }

  /** The scroller scrolled: following again when it reached the bottom, not when it left it. */
  scrolled(): void {
    const { scrollTop, scrollHeight, clientHeight } = this.scroller;
    // While keepInView holds the view above the bottom, only the user leaves it: the browser's scroll anchoring (a
    // message above resized) or a clamp moves it too, and read as the user's, that ended the following for good, so
    // the reply that came next was not followed (seen under load, its top alone in view and "Newest" shown).
    if (this.holding && (scrollTop === this.heldTop || performance.now() - this.userInputAt > USER_SCROLL_MS)) {
      this.heldTop = scrollTop;
      return;
    }
    // The scroll event of the view's own move to the bottom comes a frame later: if the conversation grew again in
    // between (a message arrived), the bottom is further down by then and the view seems to have left it, though the
    // grown conversation's ResizeObserver is about to follow it (traced in CI's review screenshot: "Newest" shown, the
    // reply below the view). Still there: still following.
    if (this.followingNow && scrollTop === this.stuckTop) return;
    this.holding = false;
    this.set(scrollHeight - scrollTop - clientHeight <= PIN_SLACK);
  }

  /**
   * Runs `change`, which makes the conversation shorter from below (the worker strip growing), without scrolling away
   * the message being read (`newest`). Scrolled up, nothing moves (the browser keeps scrollTop). Following the bottom,
   * the view follows it only as far as keeps the newest message's top in view when that top was in view; the next new
   * content is followed as ever.
   */
  keepInView(change: () => void, newest: HTMLElement | undefined): void {
    const s = this.scroller;
    const topBefore = this.followingNow && newest ? newest.getBoundingClientRect().top - s.getBoundingClientRect().top : -1;
    const heightBefore = s.clientHeight;
    change();
    if (topBefore < 0) return;
    const shrink = heightBefore - s.clientHeight;
    if (shrink <= 0) return;
    s.scrollTop += Math.min(shrink, topBefore);
    // Scroll offsets are whole pixels, rounded: by a top at 11.53 px the view went 12 px, and the reply's top half a
    // pixel out of view (seen in a test under load). Back by what it went past.
    const past = s.getBoundingClientRect().top - newest!.getBoundingClientRect().top;
    if (past > 0) s.scrollTop -= Math.ceil(past);
    this.heldTop = s.scrollTop;
    // The scroller's resize this causes would stick to the bottom: not until the conversation itself grows.
    this.holding = true;
  }
}
