// A worker name for "Start a Worker Here…": from the folder and the task's first words, in the pool's
// name rule (letters, digits, '.', '_' or '-', at most 48), and not one already taken.

const MAX = 48;

function slug(text: string, max: number): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/, '');
}

export function workerNameFor(folderName: string, task: string, taken: readonly string[]): string {
  const words = task.split(/\s+/).filter(Boolean).slice(0, 3).join(' ');
  const base = [slug(folderName, 20), slug(words, 24)].filter(Boolean).join('-') || 'worker';
  const names = new Set(taken);
  if (!names.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base.slice(0, MAX - String(n).length - 1)}-${n}`;
    if (!names.has(candidate)) return candidate;
  }
}
