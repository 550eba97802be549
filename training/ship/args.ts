// The training scripts' command-line reading: `--name VALUE` of process.argv. Imports nothing.

/** `--name VALUE` of the command line, or `dflt`. */
export const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
