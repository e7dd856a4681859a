/** Stops what global-setup started (the worker, and the Temporal dev server when it started one). */
export default async function globalTeardown(): Promise<void> {
  const children = globalThis.__TEST_CHILDREN__ ?? [];
  await Promise.all(
    children.reverse().map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
          child.once('exit', () => (clearTimeout(force), resolve()));
          child.kill('SIGTERM');
        }),
    ),
  );
  globalThis.__TEST_CHILDREN__ = [];
  globalThis.__TEST_STACK__ = undefined;
}
