/** The store whose credentials a request presented. */
export interface AuthenticatedStore {
  id: number;
  reference: string;
  domain: string;
  language: string;
  currency: string;
}
