/** What the server asks the time of: the system clock, or a test's fixed one. */
export type Clock = () => Date;
