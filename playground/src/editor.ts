/**
 * The module editor: CodeMirror 6 with the WebAssembly text grammar. Holds either text, which
 * the user edits, or a binary module (dropped or opened), which it shows as its disassembly,
 * read-only.
 */
import { basicSetup, EditorView } from 'codemirror';
import { Compartment, EditorState, Prec } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { wast } from '@codemirror/lang-wast';

export type EditorContent =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'binary'; readonly bytes: Uint8Array; readonly name: string };

export class ModuleEditor {
  private readonly view: EditorView;
  private readonly mode = new Compartment();
  private binary: { bytes: Uint8Array; name: string } | null = null;
  /** Set while the editor's text is changed by the program, not typed. */
  private settingText = false;
  private readonly listeners: Array<() => void> = [];

  /** `onRun`: Ctrl-Enter (Cmd-Enter) in the editor. */
  constructor(parent: HTMLElement, onRun: () => void) {
    this.view = new EditorView({
      parent,
      state: EditorState.create({
        doc: '',
        extensions: [
          Prec.highest(keymap.of([{ key: 'Mod-Enter', run: () => (onRun(), true) }])),
          basicSetup,
          wast(),
          this.mode.of(editable(true)),
          EditorView.updateListener.of((update) => {
            if (update.docChanged && !this.settingText) this.changed();
          }),
          EditorView.contentAttributes.of({ 'aria-label': 'WebAssembly text' }),
        ],
      }),
    });
  }

  /** Calls `listener` whenever the user changes the module (typing, or loading another). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** The module the editor holds. */
  content(): EditorContent {
    return this.binary !== null
      ? { kind: 'binary', bytes: this.binary.bytes, name: this.binary.name }
      : { kind: 'text', text: this.text() };
  }

  /** The text in the editor (for a binary module, its disassembly). */
  text(): string {
    return this.view.state.doc.toString();
  }

  get isBinary(): boolean {
    return this.binary !== null;
  }

  /** Makes the editor hold editable text. */
  setText(text: string): void {
    this.binary = null;
    this.replace(text, true);
    this.changed();
  }

  /** Makes the editor hold a binary module, showing `listing` (its disassembly) read-only. */
  setBinary(bytes: Uint8Array, name: string, listing: string): void {
    this.binary = { bytes, name };
    this.replace(listing, false);
    this.changed();
  }

  private replace(text: string, canEdit: boolean): void {
    this.settingText = true;
    try {
      this.view.dispatch({
        changes: { from: 0, to: this.view.state.doc.length, insert: text },
        effects: this.mode.reconfigure(editable(canEdit)),
        selection: { anchor: 0 },
        scrollIntoView: true,
      });
    } finally {
      this.settingText = false;
    }
  }

  focus(): void {
    this.view.focus();
  }
}

function editable(on: boolean) {
  return [EditorState.readOnly.of(!on), EditorView.editable.of(on)];
}
