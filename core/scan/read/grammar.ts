import { Language, Parser } from 'web-tree-sitter';
import { grammarBytes } from './grammar-files.ts';

/**
 * The shell grammar: tree-sitter's Bash grammar, compiled to WebAssembly, and the tree-sitter
 * runtime that runs it, loaded once when the scanner is first imported. Parsing is synchronous
 * once they are loaded, so the scan stays a pure function of its files.
 */
const bytes = grammarBytes();
await Parser.init({ wasmBinary: bytes.runtime });
/** A parser of Bash, made once per process and reused (parsing is synchronous). */
export const bashParser = new Parser();
bashParser.setLanguage(await Language.load(bytes.bash));
