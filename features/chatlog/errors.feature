@chatlog
Feature: Errors
  The page's adapter keeps a buffer of the runtime errors of its realm
  (error events, unhandled rejections) and returns it with each result; the
  server writes it below the result.

  Background:
    Given a running server
    And the page "Index - 7 Zen" is connected
    And the page "Index - 7 Zen" takes 12 ms to run each job

  @§chatlog-error-buffer @§chatlog-background-errors
  Scenario: background errors and rejections follow a successful result as a comment block
    When the page "Index - 7 Zen" throws "null.x" in the background
    And the page "Index - 7 Zen" leaves "Promise.reject(new RangeError('nope'))" unhandled in the background
    And agent "agent" asks "Index - 7 Zen" to run "({message: 'ok'})"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:00 (17ms)
      ```JSON
      {"message":"ok"}
      ```

      ```
      /*
      TypeError: cannot read property 'x' of null
          at …
      …
      ---
      Unhandled rejection: RangeError: nope
          at …
      …
      */
      ```
      """
    And that holds byte for byte per Decision (§chatlog-error-buffer)
    When agent "agent" asks "Index - 7 Zen" to run "6*7"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:01 (17ms)
      ```JSON
      42
      ```
      """

  @§chatlog-failure-stack @§chatlog-error-buffer
  Scenario: a failure writes the raw stack, then the buffered errors
    When the page "Index - 7 Zen" throws "undefinedVar" in the background
    And agent "agent" asks "Index - 7 Zen" to run "function boom() { throw new TypeError('bad') }\nboom()"
    And 1 s passes
    Then the log of "Index - 7 Zen" ends with:
      """
      **<page>** to agent at 09:00:00 (**ERROR** after 17ms)
      ```Error
      TypeError: bad
          at boom …
      …
      ```

      ```
      /*
      ReferenceError: 'undefinedVar' is not defined
      …
      */
      ```
      """
    And that holds byte for byte per Decision (§chatlog-background-errors)
    And the log of "Index - 7 Zen" does not contain "undefinedVar' is not defined\n    at boom"
