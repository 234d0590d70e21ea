// What the panel shows before the first message: what Baton does and a few prompts to start with.
import { button, h } from './dom';

export const EXAMPLE_PROMPTS = [
  'Explain how this project is structured',
  'Run the tests and fix whatever fails',
  'Add input validation to the settings form, with unit tests',
];

export class EmptyState {
  readonly el: HTMLElement;
  private built = false;

  // The content is built the first time it is shown: a panel that opens on a history
  // never pays for it.
  constructor(private readonly onExample: (prompt: string) => void) {
    this.el = h('section', { class: 'empty-state', 'data-testid': 'empty-state', 'aria-labelledby': 'empty-title' });
    this.el.hidden = true;
  }

  setVisible(visible: boolean): void {
    if (visible && !this.built) this.build();
    this.el.hidden = !visible;
  }

  private build(): void {
    this.built = true;
    const { onExample } = this;
    const examples = EXAMPLE_PROMPTS.map((prompt) => {
      const example = button('secondary', { class: 'example', 'data-testid': 'example-prompt' }, prompt);
      example.addEventListener('click', () => onExample(prompt));
      return example;
    });
    this.el.append(
      h('h2', { id: 'empty-title' }, 'Baton'),
      h(
        'p',
        {},
        'Ask anything about your code. Baton answers quick questions itself and hands real work — edits, builds, test runs — to background workers you can watch and open here.',
      ),
      h(
        'ul',
        { class: 'empty-points' },
        h('li', {}, 'Picks a fast, standard or premium model for each request (turn off Auto routing to choose yourself).'),
        h('li', {}, 'Runs several workers at once; each asks before it does anything risky.'),
        h('li', {}, 'Insert code from an answer at your cursor with one click.'),
      ),
      h('h3', {}, 'Try'),
      h('div', { class: 'examples', role: 'group', 'aria-label': 'Example prompts' }, ...examples),
    );
  }
}
