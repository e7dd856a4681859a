/** Where a page sits in a list (the `pagination` member of list responses; its schema is in src/api/route.ts). */
export interface Pagination {
  total?: number;
  page?: number;
  limit: number;
  has_more: boolean;
  next_cursor?: string | null;
}
