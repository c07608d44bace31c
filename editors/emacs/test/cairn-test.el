;;; cairn-test.el --- ERT tests of cairn.el against the real cairn  -*- lexical-binding: t; -*-

;;; Commentary:

;; Each test starts the built `cairn acp' (bin/cairn.js, after `npm run
;; build') against the scripted model server (dist/test/support), in a
;; git repository and a home folder of its own under a temporary folder,
;; drives cairn.el as a person would, and checks the chat, the editor's
;; buffers and what the model was sent.  Run from the repository:
;;
;;   emacs -Q --batch -L editors/emacs -l editors/emacs/test/cairn-test.el \
;;     -f ert-run-tests-batch-and-exit
;;
;; test/editors/emacs.test.ts runs them as part of `npm test'.

;;; Code:

(require 'ert)
(require 'auth-source)
(require 'cl-lib)
(require 'cairn)

(defconst cairn-test--repository
  (expand-file-name "../../.." (file-name-directory (or load-file-name buffer-file-name)))
  "The root of cairn's repository.")

(defconst cairn-test--sum
  "export function sum(values) {\n  return values.reduce((a, b) => a - b, 0);\n}\n"
  "src/sum.js of the test repository: it subtracts.")

(defconst cairn-test--fix-sum
  '((name . "edit_file")
    (args . ((path . "src/sum.js") (old_string . "(a, b) => a - b") (new_string . "(a, b) => a + b"))))
  "The model's call that fixes src/sum.js.")

(defvar cairn-test--dir nil "The temporary folder of the test running.")
(defvar cairn-test-answer nil "Set by the Lisp the model evaluates.")
(defvar cairn-test--server nil "The scripted model server of the test running.")

(defun cairn-test--wait (check what &optional seconds)
  "Wait until CHECK returns non-nil, failing with WHAT after SECONDS (default 30)."
  (let ((deadline (+ (float-time) (or seconds 30))))
    (while (not (funcall check))
      (when (> (float-time) deadline)
        (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.05))))

(defun cairn-test--run (program &rest args)
  "Run PROGRAM with ARGS in `default-directory', failing unless it succeeds."
  (with-temp-buffer
    (unless (zerop (apply #'call-process program nil t nil args))
      (error "%s %s failed: %s" program (string-join args " ") (buffer-string)))))

(defun cairn-test--repo (files)
  "A git repository in the test's folder holding FILES, (PATH . TEXT), committed."
  (let ((repo (file-truename (expand-file-name "repo" cairn-test--dir))))
    (dolist (file files)
      (let ((path (expand-file-name (car file) repo)))
        (make-directory (file-name-directory path) t)
        (with-temp-file path (insert (cdr file)))))
    (let ((default-directory (file-name-as-directory repo)))
      (cairn-test--run "git" "init" "-q" "-b" "main")
      (cairn-test--run "git" "add" "-A")
      (cairn-test--run "git" "-c" "user.name=cairn test" "-c" "user.email=test@cairn.invalid"
                       "-c" "commit.gpgsign=false" "commit" "-qm" "first"))
    repo))

(defun cairn-test--start-server (script)
  "Start the scripted model server on SCRIPT (a list of turns); its URL."
  (let ((script-file (expand-file-name "script.json" cairn-test--dir))
        (output ""))
    (with-temp-file script-file (insert (json-encode (vconcat script))))
    (setq cairn-test--server
          (make-process :name "scripted model" :noquery t :connection-type 'pipe
                        :command (list "node" (expand-file-name "dist/test/support/scriptedServer.js"
                                                                cairn-test--repository)
                                       script-file (cairn-test--requests-file)
                                       (cairn-test--headers-file)
                                       ;; Gone with this Emacs, however it ends.
                                       "--while-stdin-open")
                        :filter (lambda (_process text) (setq output (concat output text)))))
    (cairn-test--wait (lambda () (string-match "\"url\":\"\\([^\"]+\\)\"" output)) "the model server")
    (match-string 1 output)))

(defun cairn-test--requests-file ()
  "Where the model server writes what it was sent."
  (expand-file-name "requests.jsonl" cairn-test--dir))

(defun cairn-test--headers-file ()
  "Where the model server writes the headers of what it was sent."
  (expand-file-name "headers.jsonl" cairn-test--dir))

(defun cairn-test--authorization ()
  "The authorization headers the model's requests came with, oldest first."
  (with-temp-buffer
    (insert-file-contents (cairn-test--headers-file))
    (mapcar (lambda (line)
              (alist-get 'authorization (json-parse-string line :object-type 'alist)))
            (split-string (buffer-string) "\n" t))))

(defun cairn-test--requests ()
  "The bodies of the requests the model got, oldest first."
  (let ((file (cairn-test--requests-file)))
    (when (file-exists-p file)
      (with-temp-buffer
        (insert-file-contents file)
        (mapcar (lambda (line) (json-parse-string line :object-type 'alist :array-type 'list))
                (split-string (buffer-string) "\n" t))))))

(defun cairn-test--sent (index)
  "The messages of the model's request INDEX, as JSON text."
  (json-encode (alist-get 'messages (nth index (cairn-test--requests)))))

(defun cairn-test--tools (index)
  "The names of the tools offered in the model's request INDEX."
  (mapcar (lambda (tool) (alist-get 'name (alist-get 'function tool)))
          (alist-get 'tools (nth index (cairn-test--requests)))))

(defun cairn-test--cleanup ()
  "Stop and remove everything the test started and made, whatever fails on the way."
  (unwind-protect
      (progn
        (dolist (buffer (buffer-list))
          (when (or (eq (buffer-local-value 'major-mode buffer) 'cairn-chat-mode)
                    (let ((file (buffer-file-name buffer)))
                      (and file cairn-test--dir (file-in-directory-p file cairn-test--dir)))
                    (string-prefix-p "*cairn-test" (buffer-name buffer)))
            (with-current-buffer buffer (set-buffer-modified-p nil))
            (kill-buffer buffer)))
        (dolist (process (process-list))
          (when (member (process-name process) '("cairn" "cairn undo"))
            (delete-process process)))
        (when (process-live-p cairn-test--server) (delete-process cairn-test--server))
        ;; What cairn's processes still write (their logs) is gone with them.
        (accept-process-output nil 0.1)
        (dolist (buffer (buffer-list))
          (when (string-prefix-p " *cairn log" (buffer-name buffer)) (kill-buffer buffer))))
    (setq cairn--questions nil cairn--asking nil)
    (when cairn-test--dir (delete-directory cairn-test--dir t))
    (setq cairn-test--dir nil cairn-test--server nil)))

(defmacro cairn-test--stage (bindings &rest body)
  "Run BODY with a repository, a home and a model server, then clean up.
BINDINGS: (REPO FILES SCRIPT &optional ARGS): REPO is bound to the
repository holding FILES; the model follows SCRIPT; cairn gets ARGS."
  (declare (indent 1) (debug t))
  (let ((repo (nth 0 bindings)) (files (nth 1 bindings)) (script (nth 2 bindings))
        (args (nth 3 bindings)))
    `(let* ((cairn-test--dir (file-truename (make-temp-file "cairn-emacs-" t)))
            (home (expand-file-name "home" cairn-test--dir))
            (url (cairn-test--start-server ,script))
            (,repo (cairn-test--repo ,files))
            (process-environment
             (append (list (concat "HOME=" home)
                           (concat "XDG_CONFIG_HOME=" (expand-file-name "config" home))
                           (concat "XDG_DATA_HOME=" (expand-file-name "data" home))
                           "OPENAI_API_KEY=sk-test" "NO_COLOR=1")
                     process-environment))
            (cairn-program (expand-file-name "bin/cairn.js" cairn-test--repository))
            (cairn-program-args (append (list "--model" "openai/gpt-4o" "--base-url" (concat url "/v1"))
                                        ,args))
            (cairn-approval-guard 0)
            (cairn-request-timeout 60))
       (ignore ,repo)
       (unwind-protect
           ;; Nothing is to ask yes or no: in batch mode that would ask forever.
           (cl-letf (((symbol-function 'yes-or-no-p)
                      (lambda (prompt) (error "Asked yes or no: %s" prompt))))
             ;; Where no sandbox works, commands may run unsandboxed, as the tests of the CLI do.
             (make-directory (expand-file-name "config/cairn" home) t)
             (with-temp-file (expand-file-name "config/cairn/config.yaml" home)
               (insert "sandbox:\n  allow_unsandboxed: true\n"))
             ,@body)
         (cairn-test--cleanup)))))

(defun cairn-test--visit (repo file)
  "Visit FILE of REPO and make it the current buffer of the selected window."
  (let ((buffer (find-file-noselect (expand-file-name file repo))))
    (switch-to-buffer buffer)
    buffer))

(defun cairn-test--type (chat text)
  "Type TEXT below the prompt of CHAT and send it with C-c C-c."
  (switch-to-buffer chat)
  (goto-char (point-max))
  (insert text)
  (execute-kbd-macro (kbd "C-c C-c")))

(defun cairn-test--shows (chat text)
  "Whether CHAT shows TEXT."
  (with-current-buffer chat
    (string-match-p (regexp-quote text) (buffer-substring-no-properties (point-min) (point-max)))))

(defun cairn-test--turn-ends (chat)
  "Wait until CHAT's turn ends."
  (cairn-test--wait (lambda () (not (buffer-local-value 'cairn--busy chat))) "the turn to end"))

(ert-deftest cairn-test-full-exchange ()
  "A task typed in the chat: streamed answer, plan, approval, an edit through an unsaved buffer."
  (cairn-test--stage
      (repo `(("src/sum.js" . ,cairn-test--sum))
            `(((text . "Let me look.")
               (toolCalls . [((name . "todo_write")
                              (args . ((todos . [((id . "1") (content . "Read sum") (status . "completed"))
                                                 ((id . "2") (content . "Fix the reducer")
                                                  (status . "in_progress"))]))))
                             ((name . "read_file") (args . ((path . "src/sum.js"))))]))
              ((toolCalls . [,cairn-test--fix-sum]))
              ((text . "Fixed the reducer: it adds now.") (pace . ((pieces . 3) (everyMs . 400))))))
    (let* ((file (cairn-test--visit repo "src/sum.js"))
           (chat nil))
      ;; A change typed in Emacs and not saved.
      (with-current-buffer file
        (goto-char (point-min))
        (forward-line 1)
        (insert "  // typed in Emacs, not saved\n"))
      (setq chat (cairn))
      (should (eq (current-buffer) chat))
      (cairn-test--type chat "fix the sum")
      ;; The approval of the edit is answered y, as typed in the minibuffer.
      (setq unread-command-events (list ?y))
      (cairn-test--wait (lambda () (cairn-test--shows chat "Fixed")) "the answer to stream in")
      (should (buffer-local-value 'cairn--busy chat))
      (cairn-test--turn-ends chat)
      ;; The chat's window followed the answer: it is where you type next.
      (should (= (window-point (get-buffer-window chat)) (with-current-buffer chat (point-max))))
      (should (cairn-test--shows chat "You: fix the sum"))
      (should (cairn-test--shows chat "Let me look."))
      (should (cairn-test--shows chat "Fixed the reducer: it adds now."))
      (should (cairn-test--shows chat "TODO (1/2 done)"))
      (should (cairn-test--shows chat "[>] Fix the reducer"))
      (should (cairn-test--shows chat "▸ read_file src/sum.js  done"))
      (should (cairn-test--shows chat "▸ edit_file src/sum.js  done"))
      (should (cairn-test--shows chat "-  return values.reduce((a, b) => a - b, 0);"))
      (should (cairn-test--shows chat "+  return values.reduce((a, b) => a + b, 0);"))
      ;; The edit was made and nothing checked it (no --verify): the turn says so, as a warning.
      (should (cairn-test--shows chat "── done, not checked · "))
      (should (eq (with-current-buffer chat
                    (goto-char (point-min))
                    (search-forward "done, not checked")
                    (get-text-property (match-beginning 0) 'face))
                  'cairn-pending))
      (should (cairn-test--shows chat "changed src/sum.js"))
      (should (string-match-p "1 file changed" (with-current-buffer chat (cairn--header-line))))
      ;; TAB on a call shows all of it; RET on an edit visits the file where it changed.
      (switch-to-buffer chat)
      (goto-char (point-min))
      (search-forward "▸ read_file")
      (execute-kbd-macro (kbd "TAB"))
      (should (cairn-test--shows chat "export function sum(values) {"))
      (goto-char (point-min))
      (search-forward "▸ edit_file")
      (execute-kbd-macro (kbd "RET"))
      (should (eq (current-buffer) file))
      (should (= (line-number-at-pos) 1))
      ;; The model read the unsaved buffer, and its edit went through it; what you typed stays unsaved.
      (should (string-match-p "typed in Emacs, not saved" (cairn-test--sent 1)))
      (with-current-buffer file
        (should (string-match-p "typed in Emacs, not saved" (buffer-string)))
        (should (string-match-p "(a, b) => a \\+ b" (buffer-string)))
        (should (buffer-modified-p)))
      (should (equal (cairn-test--disk repo "src/sum.js")
                     (replace-regexp-in-string "a - b" "a + b" cairn-test--sum))))))

(defun cairn-test--disk (repo file)
  "The text of FILE of REPO on disk."
  (with-temp-buffer (insert-file-contents (expand-file-name file repo)) (buffer-string)))

(defun cairn-test--type-in (buffer line text)
  "Type TEXT at the start of LINE of BUFFER, as you would, not saving it."
  (with-current-buffer buffer
    (goto-char (point-min))
    (forward-line (1- line))
    (insert text)))

(ert-deftest cairn-test-unsaved-edit-undo ()
  "A turn edits a buffer with your unsaved text: that text is never saved, and /undo keeps it."
  (cairn-test--stage
      (repo `(("src/sum.js" . ,cairn-test--sum))
            `(((toolCalls . [,cairn-test--fix-sum]))
              ((text . "Fixed the reducer."))))
    (let* ((file (cairn-test--visit repo "src/sum.js"))
           (yours "  // typed in Emacs, not saved\n")
           (chat (progn (cairn-test--type-in file 2 yours) (cairn))))
      (with-current-buffer chat (cairn-set-mode "auto-edit"))
      (cairn-test--type chat "fix the sum")
      (cairn-test--turn-ends chat)
      ;; The disk has cairn's change and not your text; the buffer has both, and is still yours to save.
      (should (equal (cairn-test--disk repo "src/sum.js")
                     (replace-regexp-in-string "a - b" "a + b" cairn-test--sum)))
      (with-current-buffer file
        (should (equal (buffer-string)
                       (concat "export function sum(values) {\n" yours
                               "  return values.reduce((a, b) => a + b, 0);\n}\n")))
        (should (buffer-modified-p))
        (should (verify-visited-file-modtime file)))
      ;; The model is told that commands do not see your unsaved text.
      (should (string-match-p "unsaved changes of their own" (cairn-test--sent 1)))
      ;; You type more after the turn; then /undo takes back cairn's change, and only that.
      (cairn-test--type-in file 4 "// typed after the turn\n")
      (switch-to-buffer chat)
      (execute-kbd-macro (kbd "C-c C-u"))
      (cairn-test--turn-ends chat)
      (should (cairn-test--shows chat "Undid checkpoint"))
      (should (equal (cairn-test--disk repo "src/sum.js") cairn-test--sum))
      (with-current-buffer file
        (should (equal (buffer-string)
                       (concat "export function sum(values) {\n" yours
                               "  return values.reduce((a, b) => a - b, 0);\n"
                               "// typed after the turn\n}\n")))
        (should (buffer-modified-p))
        ;; Saving it is yours to do, and asks nothing: the buffer is the file with your text.
        (should (verify-visited-file-modtime file))
        (save-buffer))
      (should (equal (cairn-test--disk repo "src/sum.js") (with-current-buffer file (buffer-string)))))))

(ert-deftest cairn-test-unsaved-lines-edit-undo ()
  "An edit of the very lines you changed and did not save stays in the buffer, unsaved; /undo too."
  (cairn-test--stage
      (repo `(("src/sum.js" . ,cairn-test--sum))
            '(((toolCalls . [((name . "edit_file")
                              (args . ((path . "src/sum.js") (old_string . "(a, b) => a * b")
                                       (new_string . "(a, b) => a + b"))))]))
              ((text . "Made it add."))))
    (let* ((file (cairn-test--visit repo "src/sum.js"))
           (chat (progn (with-current-buffer file
                          (goto-char (point-min))
                          (search-forward "a - b")
                          (replace-match "a * b"))
                        (cairn))))
      (with-current-buffer chat (cairn-set-mode "auto-edit"))
      (cairn-test--type chat "make it add")
      (cairn-test--turn-ends chat)
      (should (equal (cairn-test--disk repo "src/sum.js") cairn-test--sum))
      (with-current-buffer file
        (should (string-match-p "a \\+ b" (buffer-string)))
        (should (buffer-modified-p)))
      (should (string-match-p "file on disk holds neither until they save" (cairn-test--sent 1)))
      (switch-to-buffer chat)
      (execute-kbd-macro (kbd "C-c C-u"))
      (cairn-test--turn-ends chat)
      (should (equal (cairn-test--disk repo "src/sum.js") cairn-test--sum))
      (with-current-buffer file
        (should (equal (buffer-string) (replace-regexp-in-string "a - b" "a * b" cairn-test--sum)))
        (should (buffer-modified-p))))))

(ert-deftest cairn-test-emacs-eval ()
  "The model evaluates Lisp here (asked even in auto mode), shows a file, asks a question."
  (cairn-test--stage
      (repo `(("src/sum.js" . ,cairn-test--sum))
            '(((toolCalls . [((name . "emacs_eval")
                              (args . ((code . "(setq cairn-test-answer (+ 40 2))\n(with-current-buffer (get-buffer-create \"*cairn-test-scratch*\")\n  (insert \"written by the model\")\n  (buffer-string))"))))]))
              ((toolCalls . [((name . "emacs_eval") (args . ((code . "(car 1)"))))]))
              ((toolCalls . [((name . "emacs_eval") (args . ((code . "(kill-emacs)"))))]))
              ((toolCalls . [((name . "open_in_editor") (args . ((path . "src/sum.js") (line . 2))))
                             ((name . "ask_user") (args . ((question . "Which colour?"))))]))
              ((text . "All done.")))
            '("--approval" "auto"))
    (setq cairn-test-answer nil)
    (let ((chat (progn (cairn-test--visit repo "src/sum.js") (cairn))))
      (cairn-test--type chat "play with my editor")
      (setq unread-command-events (list ?y ?y ?n))
      (cl-letf (((symbol-function 'read-string)
                 (lambda (prompt &rest _)
                   (if (string-match-p "Why not" prompt) "not that one" "blue"))))
        (cairn-test--turn-ends chat))
      (should (cairn-test--shows chat "All done."))
      ;; The first call changed the editor, and its value reached the model.
      (should (equal cairn-test-answer 42))
      (should (equal (with-current-buffer "*cairn-test-scratch*" (buffer-string)) "written by the model"))
      (should (string-match-p (regexp-quote "\\\"written by the model\\\"") (cairn-test--sent 1)))
      ;; Its code was shown to be approved.
      (should (cairn-test--shows chat "(setq cairn-test-answer (+ 40 2))"))
      ;; An error reached the model as the call's failure.
      (should (string-match-p "Wrong type argument: listp, 1" (cairn-test--sent 2)))
      ;; A refusal, with the reason typed.
      (should (string-match-p "declined.*not that one" (cairn-test--sent 3)))
      (should (cairn-test--shows chat "The user declined"))
      ;; The file shown at its line, and the question answered in the minibuffer.
      (let ((window (get-buffer-window (find-buffer-visiting (expand-file-name "src/sum.js" repo)))))
        (should window)
        (should (= 2 (with-current-buffer (window-buffer window)
                       (line-number-at-pos (window-point window))))))
      (should (string-match-p "The user answered: blue" (cairn-test--sent 4)))
      (should (member "emacs_eval" (cairn-test--tools 0)))
      (should (member "open_in_editor" (cairn-test--tools 0))))))

(ert-deftest cairn-test-interrupt ()
  "C-c C-k stops a turn; the chat goes on, even after cairn stops; no consent, no emacs_eval."
  (cairn-test--stage
      (repo '(("a.txt" . "a\n"))
            '(((hang . t))
              ((text . "Still here."))
              ((text . "Back again."))))
    (let* ((cairn-offer-eval nil)
           (chat (progn (cairn-test--visit repo "a.txt") (cairn))))
      (cairn-test--type chat "think for a long time")
      (cairn-test--wait (lambda () (cairn-test--requests)) "the model to be asked")
      (should (buffer-local-value 'cairn--busy chat))
      (execute-kbd-macro (kbd "C-c C-k"))
      (cairn-test--turn-ends chat)
      (should (cairn-test--shows chat "── interrupted"))
      (cairn-test--type chat "are you there?")
      (cairn-test--turn-ends chat)
      (should (cairn-test--shows chat "Still here."))
      (should (string-match-p "interrupt" (cairn-test--sent 1)))
      (should-not (member "emacs_eval" (cairn-test--tools 0)))
      (should (member "read_file" (cairn-test--tools 0)))
      ;; cairn stops; the next message starts it again on the same session, its history kept.
      (let ((session (buffer-local-value 'cairn--session chat)))
        (delete-process (buffer-local-value 'cairn--process chat))
        (cairn-test--wait (lambda () (cairn-test--shows chat "cairn stopped")) "the chat to say so")
        (cairn-test--type chat "and now?")
        (cairn-test--turn-ends chat)
        (should (cairn-test--shows chat "Back again."))
        (should (equal (buffer-local-value 'cairn--session chat) session))
        (should (string-match-p "Still here." (cairn-test--sent 2)))))))

(ert-deftest cairn-test-run ()
  "`cairn-run' hands cairn a task to carry out whole: plan, edit, review."
  (cairn-test--stage
      (repo `(("src/sum.js" . ,cairn-test--sum))
            `(((text . ,(json-encode '((category . "fix") (complexity . "simple") (needs_tools . t)
                                       (confidence . 0.8)))))
              ((text . ,(json-encode '((category . "fix") (complexity . "simple")
                                       (estimated_files . ["src/sum.js"]) (requires_context . :json-false)
                                       (summary . "Fix the bug.")))))
              ((text . ,(json-encode '((summary . "Fix the reducer in sum")
                                       (steps . [((id . "1") (title . "Fix the reducer in sum")
                                                  (category . "modify") (files . ["src/sum.js"])
                                                  (done_when . "it adds"))])))))
              ((toolCalls . [,cairn-test--fix-sum]))
              ((text . "Changed the reducer to add."))
              ;; The repository has no check of its own: asked for one, the model proposes none.
              ((text . ,(json-encode '((command . nil) (reason . "no tests to run")))))
              ((text . ,(json-encode '((ready . t) (quality . 9) (issues . []) (suggestions . []))))))
            '("--approval" "auto-edit"))
    (cairn-test--visit repo "src/sum.js")
    (cairn-run "make sum add")
    (let ((chat (cl-find-if (lambda (buffer) (eq (buffer-local-value 'major-mode buffer) 'cairn-chat-mode))
                            (buffer-list))))
      (cairn-test--turn-ends chat)
      (should (cairn-test--shows chat "You: /run make sum add"))
      (should (cairn-test--shows chat "Plan: Fix the reducer in sum"))
      (should (cairn-test--shows chat "▸ edit_file src/sum.js  done"))
      (should (cairn-test--shows chat "Review: ready"))
      (should (equal (with-temp-buffer (insert-file-contents (expand-file-name "src/sum.js" repo))
                                       (buffer-string))
                     (replace-regexp-in-string "a - b" "a + b" cairn-test--sum))))))

(ert-deftest cairn-test-region-undo-resume ()
  "A region sent from its buffer, the edit taken back with cairn-undo, the session resumed."
  (cairn-test--stage
      (repo `(("src/sum.js" . ,cairn-test--sum))
            `(((toolCalls . [,cairn-test--fix-sum]))
              ((text . "Done with the region.")))
            '("--approval" "auto-edit"))
    (let ((file (cairn-test--visit repo "src/sum.js"))
          chat session)
      (with-current-buffer file
        (goto-char (point-min))
        (forward-line 1)
        (transient-mark-mode 1)
        (push-mark (line-beginning-position) t t)
        (goto-char (line-end-position))
        (cairn-do-region (region-beginning) (region-end) "make it add"))
      (setq chat (cl-find-if (lambda (buffer) (eq (buffer-local-value 'major-mode buffer) 'cairn-chat-mode))
                             (buffer-list)))
      (cairn-test--turn-ends chat)
      (should (string-match-p "The region (lines 2-2 of src/sum.js)" (cairn-test--sent 0)))
      (should (string-match-p (regexp-quote "a - b") (cairn-test--sent 0)))
      (should (cairn-test--shows chat "You: make it add  [lines 2-2 of src/sum.js]"))
      (with-current-buffer file (should (string-match-p "a \\+ b" (buffer-string))))
      ;; Undone: the file and its buffer are as they were.
      (with-current-buffer file (cairn-undo))
      (cairn-test--turn-ends chat)
      (with-current-buffer file (should (equal (buffer-string) cairn-test--sum)))
      (should (cairn-test--shows chat "You: /undo"))
      ;; The session, stored, continues in a new chat after this one is gone.
      (setq session (buffer-local-value 'cairn--session chat))
      (kill-buffer chat)
      (setq chat (with-current-buffer file (cairn-resume session)))
      (should (eq (buffer-local-value 'major-mode chat) 'cairn-chat-mode))
      (should (equal (buffer-local-value 'cairn--session chat) session))
      (should (cairn-test--shows chat "Done with the region."))
      (should (cairn-test--shows chat "▸ edit_file src/sum.js  done"))
      (should (member session (mapcar (lambda (s) (alist-get 'sessionId s))
                                      (with-current-buffer chat (cairn--sessions))))))))

(defmacro cairn-test--without-key (&rest body)
  "Run BODY with no API key for cairn: none in the environment, none stored, none in auth-source."
  (declare (indent 0) (debug t))
  `(let ((process-environment (cons "OPENAI_API_KEY" process-environment))
         (auth-sources (list (expand-file-name "authinfo" cairn-test--dir)))
         (cairn-api-key nil))
     (auth-source-forget-all-cached)
     ,@body))

(defun cairn-test--cairns ()
  "The cairn processes running."
  (cl-remove-if-not (lambda (process) (and (equal (process-name process) "cairn") (process-live-p process)))
                    (process-list)))

(ert-deftest cairn-test-no-key ()
  "Without a key: a message that says how to give one, and no chat left behind."
  (cairn-test--stage
      (repo '(("a.txt" . "a\n")) '(((text . "unused"))))
    (cairn-test--without-key
      (cairn-test--visit repo "a.txt")
      (let ((failure (should-error (cairn) :type 'user-error)))
        (should (string-match-p "needs an API key for openai (OPENAI_API_KEY)" (cadr failure)))
        ;; Where the key goes: auth-source by the provider's host, the variable, or cairn's own store.
        (should (string-match-p "machine 127.0.0.1 login apikey password" (cadr failure)))
        (should (string-match-p "cairn-api-key" (cadr failure)))
        (should (string-match-p "cairn auth login openai" (cadr failure)))
        (should-not (string-match-p "Zed\\|cond:" (cadr failure))))
      (should-not (cl-find-if (lambda (buffer) (eq (buffer-local-value 'major-mode buffer) 'cairn-chat-mode))
                              (buffer-list)))
      (should-not (cairn-test--cairns))
      (should-not (cairn-test--requests)))))

(ert-deftest cairn-test-key-from-auth-source ()
  "A key in auth-source (as gptel finds it) reaches cairn in its environment, and only there."
  (cairn-test--stage
      (repo '(("a.txt" . "a\n")) '(((text . "Keyed in."))))
    (cairn-test--without-key
      (with-temp-file (car auth-sources)
        (insert "machine 127.0.0.1 login apikey password sk-from-authinfo\n"))
      (let ((chat (progn (cairn-test--visit repo "a.txt") (cairn))))
        (cairn-test--type chat "what is in a.txt?")
        (cairn-test--turn-ends chat)
        (should (cairn-test--shows chat "Keyed in."))
        (should (equal (cairn-test--authorization) '("Bearer sk-from-authinfo")))
        (let ((process (buffer-local-value 'cairn--process chat)))
          (should-not (cl-some (lambda (arg) (string-match-p "sk-from" arg)) (process-command process)))
          (should-not (string-match-p "sk-from" (with-current-buffer (process-get process 'cairn-log)
                                                  (buffer-string)))))
        (should-not (cairn-test--shows chat "sk-from"))
        ;; Only the chat's cairn got it: not Emacs's own environment.
        (should-not (getenv "OPENAI_API_KEY"))))))

(ert-deftest cairn-test-key-from-variable ()
  "`cairn-api-key' as a function is asked for the provider cairn names."
  (cairn-test--stage
      (repo '(("a.txt" . "a\n")) '(((text . "Keyed by function."))))
    (cairn-test--without-key
      (let* ((asked nil)
             (cairn-api-key (lambda (provider) (push provider asked) "sk-from-function"))
             (chat (progn (cairn-test--visit repo "a.txt") (cairn))))
        (cairn-test--type chat "what is in a.txt?")
        (cairn-test--turn-ends chat)
        (should (cairn-test--shows chat "Keyed by function."))
        (should (equal asked '("openai")))
        (should (equal (cairn-test--authorization) '("Bearer sk-from-function")))))))

(defconst cairn-test--markdown
  (concat "## What changed\n\nI fixed **src/greet.js**: it now says `Hello`.\n\n"
          "- one item\n- *two* items\n\n```js\nconst greeting = 1;\n```\n"
          "See [the docs](https://example.com/docs).")
  "An answer in Markdown, as models write them.")

(defun cairn-test--visible (chat)
  "CHAT as it shows: without the text it hides, with what it displays instead."
  (with-current-buffer chat
    (let ((shown "") (position (point-min)))
      (while (< position (point-max))
        (let ((next (next-char-property-change position))
              (display (get-char-property position 'display)))
          (unless (invisible-p position)
            (setq shown (concat shown (if (stringp display) display
                                        (buffer-substring-no-properties position next)))))
          (setq position next)))
      shown)))

(defun cairn-test--faces-at (chat text)
  "The faces CHAT shows the first character of TEXT in."
  (with-current-buffer chat
    (goto-char (point-min))
    (search-forward text)
    (let ((face (get-text-property (match-beginning 0) 'font-lock-face)))
      (flatten-tree (if (listp face) face (list face))))))

(defun cairn-test--markdown-answer (render)
  "The chat after a streamed Markdown answer, drawn as RENDER (`cairn-render-markdown') says."
  (let* ((cairn-render-markdown render)
         (chat (cairn)))
    (cairn-test--type chat "what did you change?")
    (cairn-test--turn-ends chat)
    chat))

(ert-deftest cairn-test-markdown ()
  "An answer's Markdown is drawn, its markup hidden, as it streams in: cairn.el's own drawing."
  (cairn-test--stage
      (repo '(("a.txt" . "a\n"))
            `(((text . ,cairn-test--markdown) (pace . ((pieces . 9) (everyMs . 30))))
              ((text . ,cairn-test--markdown))))
    (cairn-test--visit repo "a.txt")
    (let* ((chat (cairn-test--markdown-answer 'builtin))
           (shown (cairn-test--visible chat)))
      (should (string-match-p "^What changed$" shown))
      (should (string-match-p "I fixed src/greet.js: it now says Hello\\." shown))
      (should (string-match-p "^• one item\n• two items$" shown))
      (should (string-match-p "^const greeting = 1;$" shown))
      (should (string-match-p "See the docs\\." shown))
      (should-not (string-match-p "\\*\\*\\|```\\|## \\|`Hello`\\|(https:" shown))
      (should (memq 'cairn-heading (cairn-test--faces-at chat "What changed")))
      (should (memq 'bold (cairn-test--faces-at chat "src/greet.js")))
      (should (memq 'cairn-code (cairn-test--faces-at chat "Hello")))
      (should (memq 'italic (cairn-test--faces-at chat "two")))
      (should (memq 'link (cairn-test--faces-at chat "the docs")))
      ;; The block is code in its language's faces (js-mode's, here).
      (should (memq 'cairn-code (cairn-test--faces-at chat "greeting")))
      (should (memq 'font-lock-keyword-face (cairn-test--faces-at chat "const")))
      ;; What is copied from the chat is the answer as written.
      (should (cairn-test--shows chat "I fixed **src/greet.js**: it now says `Hello`."))
      ;; As written, when asked for.
      (with-current-buffer chat (cairn-new-session))
      (let ((raw (cairn-test--markdown-answer nil)))
        (should (string-match-p "I fixed \\*\\*src/greet.js\\*\\*" (cairn-test--visible raw)))))))

(ert-deftest cairn-test-markdown-mode ()
  "With markdown-mode installed (Debian's elpa-markdown-mode), its faces draw the answer."
  (dolist (dir (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/markdown-mode-*"))
    (add-to-list 'load-path dir))
  (should (require 'markdown-mode nil t))
  (cairn-test--stage
      (repo '(("a.txt" . "a\n")) `(((text . ,cairn-test--markdown))))
    (cairn-test--visit repo "a.txt")
    (let* ((chat (cairn-test--markdown-answer t))
           (shown (cairn-test--visible chat)))
      (should (string-match-p "I fixed src/greet.js: it now says Hello\\." shown))
      (should-not (string-match-p "\\*\\*" shown))
      (should (memq 'markdown-bold-face (cairn-test--faces-at chat "src/greet.js")))
      (should (cl-some (lambda (face) (string-prefix-p "markdown-header-face" (symbol-name face)))
                       (cairn-test--faces-at chat "What changed"))))))

;; `touch' in the folder where the hook runs: the repository's own command.
(defconst cairn-test--hook-config
  "hooks:\n  UserPromptSubmit:\n    - hooks:\n        - command: touch hook-ran\n"
  "A project's .cairn/config.yaml whose hook leaves hook-ran behind when it runs.")

(ert-deftest cairn-test-trust ()
  "The project's own hook runs only once you trust its folder; Emacs 30's trust counts."
  (cairn-test--stage
      (repo `(("README.md" . "# demo\n") (".cairn/config.yaml" . ,cairn-test--hook-config))
            '(((text . "Left out.")) ((text . "Applied."))))
    (let ((marker (expand-file-name "hook-ran" repo))
          chat)
      (cairn-test--visit repo "README.md")
      (let ((cairn-trust-workspace nil))
        (should-not (cairn--trusted-p repo))
        (setq chat (cairn))
        (cairn-test--type chat "first")
        (cairn-test--turn-ends chat))
      (should (cairn-test--shows chat "Left out."))
      (should-not (file-exists-p marker))
      ;; A folder you list is trusted, with those below it: a new session applies its hook.
      (let ((cairn-trust-workspace (list (file-name-directory (directory-file-name repo)))))
        (should (cairn--trusted-p repo))
        (with-current-buffer chat (cairn-new-session))
        (cairn-test--type chat "second")
        (cairn-test--turn-ends chat))
      (should (cairn-test--shows chat "Applied."))
      (should (file-exists-p marker))
      ;; What Emacs itself trusts (`trusted-content', Emacs 30) is asked of the folder.
      (let ((cairn-trust-workspace nil))
        (if (boundp 'trusted-content)
            (let ((trusted-content (list (abbreviate-file-name (file-name-as-directory repo)))))
              (should (cairn--trusted-p repo)))
          (cl-letf (((symbol-function 'trusted-content-p)
                     (lambda () (equal buffer-file-truename (file-name-as-directory repo)))))
            (should (cairn--trusted-p repo))))))))

(provide 'cairn-test)

;;; cairn-test.el ends here
