/* tcpserve PORT N: listens on 127.0.0.1:PORT and answers N connections with "hello N\n"
 * (N counting down), then exits 0. Exits 1 when it cannot listen. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc != 3) {
		return 2;
	}
	int s = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons(atoi(argv[1]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 4) < 0) {
		perror("tcpserve");
		return 1;
	}
	for (int n = atoi(argv[2]); n > 0; n--) {
		int c = accept(s, NULL, NULL);
		if (c < 0) {
			return 1;
		}
		char line[32];
		int len = snprintf(line, sizeof line, "hello %d\n", n);
		write(c, line, len);
		close(c);
	}
	return 0;
}
