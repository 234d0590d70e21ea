// Baton's numeric settings, read through one reader against the bounds package.json declares. A bad value (not a
// number, out of range) reads as the default, pops up once as a warning with the way to fix it, and is listed by
// Doctor until it is fixed; the user's own value is left as it is. Settings of other types (settings.ts) note their
// problems here too, so the warning and Doctor's list are one.
import * as vscode from 'vscode';
import { numberSchemas, readNumberSetting, type NumberSchema } from '../core/util/numberSetting';

const EXTENSION_ID = 'baton-dev.baton';

let properties: Record<string, unknown> | undefined;
let schemas: Map<string, NumberSchema> | undefined;
/** The problem each bad setting has now, so the same one pops up once, not at every read. */
const problems = new Map<string, string>();

function allSchemas(): Map<string, NumberSchema> {
  properties ??= (vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON?.contributes?.configuration?.properties ?? {}) as Record<string, unknown>;
  return (schemas ??= numberSchemas(properties as Parameters<typeof numberSchemas>[0]));
}

/** `name` in full: `baton.workers.max`, or a field of an object setting: `baton.conversation.summarize.keep`. */
export function numberSetting(name: string): number {
  const schema = allSchemas().get(name);
  // A name missing from package.json is a bug in Baton, not in the user's settings.
  if (!schema) throw new Error(`${name} is not a numeric setting in package.json`);
  const reading = readNumberSetting(name, userValue(name), schema);
  noteSettingProblem(name, reading.problem);
  return reading.value;
}

/**
 * Every numeric setting read now: the problems of all settings, one line each (empty when none has one). A setting of
 * another type is as its last reading left it (settings.ts's settingProblems reads them all first).
 */
export function numberSettingProblems(): string[] {
  for (const name of allSchemas().keys()) numberSetting(name);
  return [...problems.values()];
}

function userValue(name: string): unknown {
  const config = vscode.workspace.getConfiguration();
  if (properties && name in properties) return config.get<unknown>(name);
  const cut = name.lastIndexOf('.');
  const parentName = name.slice(0, cut);
  const parent = config.get<unknown>(parentName);
  const isObject = typeof parent === 'object' && parent !== null && !Array.isArray(parent);
  // The object itself of the wrong type (10, "x", null): its fields read as their defaults, and the object is what to fix.
  noteSettingProblem(parentName, parent === undefined || isObject ? undefined : notAnObject(parentName, parent));
  return isObject ? (parent as Record<string, unknown>)[name.slice(cut + 1)] : undefined;
}

function notAnObject(name: string, raw: unknown): string {
  const shown = JSON.stringify(raw) ?? String(raw);
  const fallback = JSON.stringify((properties?.[name] as { default?: unknown } | undefined)?.default ?? {});
  return `${name} has a value of the wrong type (${shown.length > 80 ? `${shown.slice(0, 77)}...` : shown}): it must be an object. Baton uses the default, ${fallback}, until it is fixed.`;
}

/** `name`'s problem now (undefined: none): a new one pops up once; Doctor lists it until a reading finds none. */
export function noteSettingProblem(name: string, problem: string | undefined): void {
  if (!problem) return void problems.delete(name);
  if (problems.get(name) === problem) return;
  problems.set(name, problem);
  void vscode.window.showWarningMessage(`Baton: ${problem}`, 'Open Settings').then((choice) => {
    if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', name.split('.').slice(0, 3).join('.'));
  });
}
