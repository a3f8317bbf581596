// AWS's server access log record format (AWS *Amazon S3 server access log format*), shared by the
// unit tests of the formatter and the end-to-end tests that read delivered log objects.

/** AWS's record format as a regular expression: 26 fields, three of them quoted, the time bracketed; status `-` in records of lifecycle actions. */
export const AWS_LOG_RECORD =
  /^(\S+) (\S+) \[(\d{2}\/\w{3}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000)\] (\S+) (\S+) (\S+) (\S+) (\S+) "((?:[^"\\]|\\.)*)" (\d{3}|-) (\S+) (\S+) (\S+) (\S+) (\S+) "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)" (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+)$/;
