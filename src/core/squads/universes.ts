// Character names for squad agents, after IO's 80s universes: an agent gets the next unused name of its squad's
// universe, so "ask Egon" names one specialist unambiguously.

export const UNIVERSES: Readonly<Record<string, readonly string[]>> = {
  ghostbusters: ['Venkman', 'Stantz', 'Spengler', 'Zeddemore', 'Barrett', 'Tully', 'Melnitz', 'Slimer'],
  'back-to-the-future': ['Marty', 'Doc', 'Jennifer', 'Lorraine', 'George', 'Biff', 'Strickland', 'Einstein'],
  'star-wars': ['Luke', 'Leia', 'Han', 'Chewie', 'Lando', 'Yoda', 'Artoo', 'Threepio'],
  goonies: ['Mikey', 'Brand', 'Chunk', 'Mouth', 'Data', 'Andy', 'Stef', 'Sloth'],
  'a-team': ['Hannibal', 'Face', 'Murdock', 'BA', 'Amy', 'Decker', 'Stockwell', 'Frankie'],
  thundercats: ['Lion-O', 'Tygra', 'Panthro', 'Cheetara', 'WilyKit', 'WilyKat', 'Snarf', 'Jaga'],
  transformers: ['Optimus', 'Bumblebee', 'Jazz', 'Ironhide', 'Ratchet', 'Wheeljack', 'Prowl', 'Hound'],
};

export const DEFAULT_UNIVERSE = 'ghostbusters';

/** The universe's key for a name the model gave ("Back to the Future" → back-to-the-future), or undefined. */
export function universeKey(name: string): string | undefined {
  const key = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return UNIVERSES[key] ? key : undefined;
}

/** The first character of `universe` no agent uses yet; past the list, numbered ("Venkman-2"). */
export function nextCharacter(universe: string, taken: readonly string[]): string {
  const used = new Set(taken.map((n) => n.toLowerCase()));
  const names = UNIVERSES[universe] ?? UNIVERSES[DEFAULT_UNIVERSE]!;
  for (const name of names) if (!used.has(name.toLowerCase())) return name;
  for (let round = 2; ; round++) {
    for (const name of names) if (!used.has(`${name}-${round}`.toLowerCase())) return `${name}-${round}`;
  }
}
