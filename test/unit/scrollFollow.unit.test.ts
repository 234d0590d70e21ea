// When the conversation's view follows its newest content (webview/scrollFollow.ts), decided from the scroller's
// numbers alone: a scroller stand-in that clamps scrollTop as a browser does, and the scroll events the browser would
// dispatch a frame later, called by hand in the order that matters. (Chromium runs the same in webviewRoom.)
import * as assert from 'node:assert/strict';
import { ScrollFollow } from '../../webview/scrollFollow';

class Scroller {
  scrollHeight = 1000;
  clientHeight = 200;
  private top = 800;
  get scrollTop(): number {
    return this.top;
  }
  set scrollTop(value: number) {
    this.top = Math.max(0, Math.min(value, this.scrollHeight - this.clientHeight));
  }
}

function follow(): { s: Scroller; f: ScrollFollow; changes: boolean[] } {
  const s = new Scroller();
  const changes: boolean[] = [];
  const f = new ScrollFollow(s as unknown as HTMLElement, (following) => changes.push(following));
  return { s, f, changes };
}

describe('ScrollFollow', () => {
  it('its own move to the bottom, whose scroll event comes after the conversation grew again, does not stop the following', () => {
    const { s, f, changes } = follow();
    s.scrollHeight = 1100; // message a arrived
    f.stick(); // its ResizeObserver: to the bottom
    assert.equal(s.scrollTop, 900);
    s.scrollHeight = 1300; // message b arrived before the frame that dispatches the scroll event of that move
    f.scrolled();
    assert.deepEqual(changes, [], 'still following');
    f.stick(); // b's ResizeObserver
    assert.equal(s.scrollTop, 1100, 'at the bottom again');
  });

  it('the user scrolling away stops it, and coming back to the bottom starts it again', () => {
    const { s, f, changes } = follow();
    f.stick();
    s.scrollTop = 500;
    f.userInput();
    f.scrolled();
    assert.deepEqual(changes, [false]);
    s.scrollHeight = 1200;
    f.stick();
    assert.equal(s.scrollTop, 500, 'not pulled away from what is being read');
    s.scrollTop = 990;
    f.scrolled();
    assert.deepEqual(changes, [false, true], 'within the slack of the bottom: following again');
  });

  it('held by a worker card, a scroll the browser makes keeps the hold; the user\u2019s ends it', () => {
    const { s, f, changes } = follow();
    f.stick();
    const newest = { getBoundingClientRect: () => ({ top: 700 - s.scrollTop + 100 }) } as unknown as HTMLElement;
    (s as unknown as { getBoundingClientRect(): { top: number } }).getBoundingClientRect = () => ({ top: 0 });
    f.keepInView(() => (s.clientHeight = 60), newest);
    assert.ok(s.scrollTop < s.scrollHeight - s.clientHeight - 32, `held above the bottom (top ${s.scrollTop})`);
    s.scrollTop -= 7; // scroll anchoring
    f.scrolled();
    assert.deepEqual(changes, [], 'still following');
    s.scrollTop -= 50;
    f.userInput();
    f.scrolled();
    assert.deepEqual(changes, [false]);
  });
});
