// How Debian's Chromium runs here: headless, as root, and quiet on a closed network (its background
// connections would otherwise be refused many times over). Shared by every browser the tests start.
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
