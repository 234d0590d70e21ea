// How many references ride on one message: the composer (webview) and the host (references.ts, protocol.ts) both keep to
// it. A module of its own, with nothing imported: the webview takes it without zod, whose compiled parsers the panel's
// Content Security Policy refuses ('unsafe-eval').
export const MAX_REFERENCES = 20;
