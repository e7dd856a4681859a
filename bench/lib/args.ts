/** `--name value` from this bench process's arguments, else the fallback (as text). */
export function benchArg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
