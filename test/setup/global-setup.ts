// Placeholder; replaced by the real setup (database, Temporal dev server, worker).
export default async function globalSetup(): Promise<void> {}
