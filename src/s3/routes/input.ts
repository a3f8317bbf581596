// What a route parser reads of a request: its decoded query and its headers (presigned x-amz-*
// query parameters hoisted in, s3.md §2.9).

export interface RequestInput {
  query: Map<string, string>;
  headers: Readonly<Record<string, string>>;
}
