// The chat panel: a thin bridge between the webview and the ChatController. The webview keeps no
// data (retainContextWhenHidden stays false): each time it loads it says `ready` and gets a snapshot (and, once the core
// is built, shows the newest messages written into its HTML before that).
import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import { panelOpened } from '../core/chat/panelOpened';
import type { BatonServices } from './services';
import { createNonce, renderWebviewHtml } from './webviewHtml';

export const CHAT_VIEW_ID = 'baton.chat';

export interface ChatView extends vscode.Disposable {
  isVisible(): boolean;
  /** Fires each time the chat comes into view. */
  readonly onDidShow: vscode.Event<void>;
}

export function registerChatView(context: vscode.ExtensionContext, services: BatonServices): ChatView {
  const provider = new ChatViewProvider(context.extensionUri, services);
  const registration = vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, provider, { webviewOptions: { retainContextWhenHidden: false } });
  return {
    isVisible: () => provider.isVisible(),
    onDidShow: provider.onDidShow,
    dispose: () => {
      registration.dispose();
      provider.dispose();
    },
  };
}

interface WebviewFiles {
  script: string;
  style: string;
  /** The code highlighter's bundle, which the page runs after its first paint. */
  highlighter: string;
}

class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  /**
   * The webview's two bundles and stylesheet, which its page carries (see webviewHtml.ts): read once, from the moment
   * the view is registered, so the page is ready when the view opens. Bounded: one copy of each file (about 350 KB).
   */
  private files: Promise<WebviewFiles> | undefined;
  /** Releases the listeners of the view resolved last (see resolveWebviewView). */
  private viewListeners: (() => void) | undefined;
  private unread = 0;
  private readonly shown = new vscode.EventEmitter<void>();
  /** Fires each time the chat comes into view (the Workers tree opens then for a worker started while it was hidden). */
  readonly onDidShow = this.shown.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly services: BatonServices,
  ) {
    this.files = this.readFiles();
  }

  private readFiles(): Promise<WebviewFiles> {
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    const read = (name: string): Promise<string> => readFile(vscode.Uri.joinPath(dist, name).fsPath, 'utf8');
    return Promise.all([read('webview.js'), read('webview.css'), read('webview-highlighter.js')]).then(([script, style, highlighter]) => ({
      script,
      style,
      highlighter,
    }));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    // Shown again after being hidden, the view may be resolved anew (no visibility change fires): it is read now.
    if (view.visible) this.becameVisible();
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    view.webview.options = {
      enableScripts: true,
      localResourceRoots: [dist, vscode.Uri.joinPath(this.extensionUri, 'media')],
    };
    // With the core built, the newest messages go into the HTML: the panel paints them without waiting for the round
    // trip of `ready` through this process, which is busy at that moment (the runtime starts when the panel opens).
    // The files were read when the view was registered: this `then` runs at once, not after this process's other work.
    let disposed = false;
    const files = (this.files ??= this.readFiles());
    files.then(
      (page) => {
        if (disposed) return;
        view.webview.html = renderWebviewHtml({
          cspSource: view.webview.cspSource,
          nonce: createNonce(),
          script: { text: page.script },
          style: { text: page.style },
          highlighter: page.highlighter,
          firstPage: this.services.current?.chat.firstPage(),
        });
      },
      (err: unknown) => {
        // Read again the next time the view opens (a file being rebuilt, say); nothing else is lost.
        if (this.files === files) this.files = undefined;
        this.services.log.error('Baton could not read its panel files', err);
        void vscode.window.showErrorMessage(`Baton could not load its panel: ${err instanceof Error ? err.message : String(err)}`);
      },
    );
    // Messages that arrive before the core is built wait for it; nothing typed is dropped.
    const pending: unknown[] = [];
    let unsubscribe: (() => void) | undefined;
    // This view's own listeners go with it: VS Code resolves the view anew each time it is opened again after it went
    // (moved, or closed and reopened), and the provider lives as long as the window.
    const listeners: vscode.Disposable[] = [];
    const release = (): void => {
      for (const l of listeners.splice(0)) l.dispose();
    };
    this.viewListeners?.();
    this.viewListeners = release;
    listeners.push(
      view.webview.onDidReceiveMessage((raw) => {
        const core = this.services.current;
        if (core) core.chat.receive(raw);
        else pending.push(raw);
      }),
      view.onDidChangeVisibility(() => {
        if (view.visible) this.becameVisible();
      }),
      view.onDidDispose(() => {
        disposed = true;
        unsubscribe?.();
        if (this.view === view) this.view = undefined;
        release();
        if (this.viewListeners === release) this.viewListeners = undefined;
      }),
    );
    void this.services.ready().then(
      (core) => {
        // Closed before the core was ready: what was typed still reaches the core, but nothing is posted to a dead
        // webview (a view opened again was resolved anew and subscribed for itself). Subscribed before the replay, so
        // the answer to a waiting `ready` (the snapshot) reaches a live view.
        if (!disposed) {
          unsubscribe = core.chat.onDidPost((message) => {
            void view.webview.postMessage(message);
            if (!view.visible && message.type === 'message/append' && message.message.role === 'background') this.setBadge(this.unread + 1);
          });
        }
        for (const raw of pending.splice(0)) core.chat.receive(raw);
        if (disposed) return;
        // Opening the chat view is the moment to start the runtime, find out whether Baton can answer, and ready the session.
        void panelOpened(core, this.services.log);
      },
      (err) => {
        this.services.log.error('Baton failed to start', err);
        void vscode.window
          .showErrorMessage(`Baton failed to start: ${err instanceof Error ? err.message : String(err)}`, 'Show Log')
          .then((pick) => pick && this.services.log.show());
      },
    );
  }

  isVisible(): boolean {
    return this.view?.visible ?? false;
  }

  private becameVisible(): void {
    this.setBadge(0);
    this.shown.fire();
  }

  private setBadge(count: number): void {
    this.unread = count;
    // A badge of 0 is hidden; `undefined` did not clear a shown badge in code-server 1.100 (the e2e test saw it stay).
    if (this.view)
      this.view.badge = count > 0 ? { value: count, tooltip: `${count} new background result${count === 1 ? '' : 's'}` } : { value: 0, tooltip: '' };
  }

  dispose(): void {
    this.viewListeners?.();
    this.shown.dispose();
  }
}
