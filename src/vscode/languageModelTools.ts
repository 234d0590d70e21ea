// Baton's language-model tools for Copilot's agent mode and any other agent: baton_delegate,
// baton_ask, baton_workers and baton_recall (declared in package.json, referenceable as #baton).
// Everything but the VS Code types lives in src/core/api/languageModelTools.ts.
import * as vscode from 'vscode';
import { followToken } from '../core/api/batonAgentTool';
import { BATON_TOOL_NAMES, prepareTool, runTool } from '../core/api/languageModelTools';
import type { BatonToolName } from '../core/api/apiInputs';
import type { BatonServices } from './services';

export function registerLanguageModelTools(services: BatonServices): vscode.Disposable {
  return vscode.Disposable.from(...BATON_TOOL_NAMES.map((name) => vscode.lm.registerTool<unknown>(name, tool(name, services))));
}

function tool(name: BatonToolName, services: BatonServices): vscode.LanguageModelTool<unknown> {
  return {
    // Throws on bad input, so the user is never asked to confirm a call that cannot run.
    prepareInvocation: async (options) => {
      // The core is needed to check a worker's folder against the protected paths (it is built for the call anyway).
      const prepared = prepareTool(name, options.input, name === 'baton_delegate' ? (await services.ready()).access : undefined);
      return {
        invocationMessage: prepared.invocationMessage,
        ...(prepared.confirmation
          ? { confirmationMessages: { title: prepared.confirmation.title, message: new vscode.MarkdownString(prepared.confirmation.message) } }
          : {}),
      };
    },
    invoke: async (options, token) => {
      const core = await services.ready();
      // A token cancelled already gives an aborted signal: baton_ask and baton_delegate then send nothing.
      const cancel = followToken(token);
      try {
        const text = await runTool(core.access, name, options.input, cancel.signal);
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
      } finally {
        cancel.dispose();
      }
    },
  };
}
