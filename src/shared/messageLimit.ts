// How long one message from the composer may be: the composer (webview) says when its text is over, and the host
// (protocol.ts) refuses a longer one. A module of its own, with nothing imported: the webview takes it without zod.
export const MAX_MESSAGE_LENGTH = 100_000;
