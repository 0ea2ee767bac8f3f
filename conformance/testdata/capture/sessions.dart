// sessions.dart is the Dart VM leak of heapconv's diff tests
// (conformance/diff_test.go starts it): a server's sessions kept in a
// global map that nothing empties, each with a closure (onChange) over its
// prefs and a token string. It prints "ready", then takes commands on
// standard input, one a line:
//
//	leak N   adds N sessions and prints "leaked"
//	work     allocates and drops, and prints "worked"
//
// It keeps to the language of Dart 2.18, and exits when its standard
// input closes.
import 'dart:convert';
import 'dart:io';

/// Session is what the program leaks: one per login.
class Session {
  Session(this.id, this.token, this.prefs, this.onChange);
  final String id;
  final String token;
  final Map<String, String> prefs;
  final int Function(String key, String value) onChange;
}

/// Every session, by id: the leak.
final Map<String, Session> sessions = <String, Session>{};

int next = 0;

void login(String user) {
  final id = 'sess-${next++}-$user';
  final prefs = <String, String>{'theme': 'dark', 'user': user};
  final token = 'token:$id:' * 8;
  int onChange(String key, String value) {
    prefs[key] = value;
    return token.length;
  }

  sessions[id] = Session(id, token, prefs, onChange);
}

int work() {
  final scratch = <String>[];
  for (var i = 0; i < 100; i++) {
    scratch.add('tmp-$i');
  }
  return scratch.length;
}

void main() {
  login('warm');
  work();
  stdin
      .transform(utf8.decoder)
      .transform(const LineSplitter())
      .listen(command, onDone: () => exit(0));
  print('ready');
}

void command(String line) {
  if (line.startsWith('leak ')) {
    final n = int.parse(line.substring('leak '.length));
    for (var i = 0; i < n; i++) {
      login('u${i % 7}');
    }
    print('leaked');
  } else if (line == 'work') {
    work();
    print('worked');
  }
}
