/*
 * A 2310A player in C, written for gauntlet's fuzzer tests from docs/dealer2310.md: it
 * behaves as the reference player does in every case the fuzzer makes, and keeps C's
 * default action for every signal. Compiled as it is, it has no bug; each PLANT_* macro
 * plants exactly one (see fuzz/blackbox/cplayers_test.go):
 *
 *   PLANT_EARLY_STATUS   EARLY ends the game with exit 0 and no message (spec: 5,
 *                        "Early game over")
 *   PLANT_ID_STATUS      an invalid ID exits 2 (spec: 3)
 *   PLANT_STATUS_SPACE   the status line says "Money = " instead of "Money="
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define MAX_PLAYERS 65536
#define MAX_LINE (1 << 20)

enum { BARRIER, MO, V1, V2, DO, RI };
static const char *labels[] = {"::", "Mo", "V1", "V2", "Do", "Ri"};

typedef struct {
    long long money, points;
    long site, order;
    long v1, v2, cards[5];
} Player;

static long nsites, nplayers, me, clock_;
static int *type, *cap;
static Player *players;

/* A non-empty string of digits; values past MAX_PLAYERS saturate. */
static int arg_number(const char *s, long *out) {
    long n = 0;
    if (!*s) {
        return 0;
    }
    for (; *s; s++) {
        if (*s < '0' || *s > '9') {
            return 0;
        }
        if (n <= MAX_PLAYERS) {
            n = n * 10 + (*s - '0');
        }
    }
    *out = n;
    return 1;
}

/* A canonical number of s[0..len): 1 to 9 digits, no leading zero, '-' only if signed. */
static int number(const char *s, size_t len, int signed_, long long *out) {
    int neg = 0;
    if (signed_ && len > 0 && s[0] == '-') {
        neg = 1;
        s++;
        len--;
    }
    if (len == 0 || len > 9 || (len > 1 && s[0] == '0') || (neg && len == 1 && s[0] == '0')) {
        return 0;
    }
    long long n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return 0;
        }
        n = n * 10 + (s[i] - '0');
    }
    *out = neg ? -n : n;
    return 1;
}

static int parse_path(const char *line, size_t len) {
    size_t i = 0;
    while (i < len && line[i] >= '0' && line[i] <= '9') {
        i++;
    }
    long long n;
    if (!number(line, i, 0, &n) || i >= len || line[i] != ';') {
        return 0;
    }
    const char *rest = line + i + 1;
    size_t rlen = len - i - 1;
    if (rlen % 3 != 0 || (long long)(rlen / 3) != n || n < 2) {
        return 0;
    }
    nsites = n;
    type = calloc(nsites, sizeof(int));
    cap = calloc(nsites, sizeof(int));
    for (long s = 0; s < nsites; s++) {
        const char *p = rest + 3 * s;
        int t = -1;
        if (p[0] == ':' && p[1] == ':' && p[2] == '-') {
            t = BARRIER;
        } else {
            for (int k = MO; k <= RI; k++) {
                if (p[0] == labels[k][0] && p[1] == labels[k][1]) {
                    t = k;
                }
            }
            if (t < 0 || p[2] < '1' || p[2] > '9') {
                return 0;
            }
            cap[s] = p[2] - '0';
        }
        if (t < 0) {
            return 0;
        }
        type[s] = t;
    }
    return type[0] == BARRIER && type[nsites - 1] == BARRIER;
}

static long occupied(long s) {
    long n = 0;
    for (long p = 0; p < nplayers; p++) {
        n += players[p].site == s;
    }
    return n;
}

static int has_room(long s) {
    return type[s] == BARRIER || occupied(s) < cap[s];
}

static long closest(long from, int a, int b, int c) {
    long end = nsites - 1;
    for (long s = from + 1; s < nsites; s++) {
        if (type[s] == BARRIER) {
            end = s;
            break;
        }
    }
    for (long s = from + 1; s <= end; s++) {
        int t = type[s];
        if ((t == a || t == b || t == c) && has_room(s)) {
            return s;
        }
    }
    return -1;
}

static long choose(void) {
    long from = players[me].site;
    if (from >= nsites - 1) {
        return -1;
    }
    if (players[me].money > 0) {
        long s = closest(from, DO, DO, DO);
        if (s >= 0) {
            return s;
        }
    }
    if (type[from + 1] == MO && has_room(from + 1)) {
        return from + 1;
    }
    return closest(from, V1, V2, BARRIER);
}

static int by_order(const void *a, const void *b) {
    long x = players[*(const long *)a].order, y = players[*(const long *)b].order;
    return (x > y) - (x < y);
}

static void display(void) {
    long width = 3 * nsites, rows = 0;
    long *ids = malloc(nplayers * sizeof(long));
    long *depth = calloc(nsites, sizeof(long));
    for (long p = 0; p < nplayers; p++) {
        ids[p] = p;
        if (++depth[players[p].site] > rows) {
            rows = depth[players[p].site];
        }
    }
    qsort(ids, nplayers, sizeof(long), by_order);
    char *b = malloc((width + 1) * (rows + 1));
    memset(b, ' ', (width + 1) * (rows + 1));
    for (long s = 0; s < nsites; s++) {
        memcpy(b + 3 * s, labels[type[s]], 2);
        depth[s] = 0;
    }
    for (long i = 0; i < nplayers; i++) {
        long s = players[ids[i]].site;
        depth[s]++;
        b[(width + 1) * depth[s] + 3 * s] = '0' + ids[i] % 10;
    }
    for (long r = 0; r <= rows; r++) {
        b[(width + 1) * r + width] = '\n';
    }
    fwrite(b, 1, (width + 1) * (rows + 1), stderr);
    free(b);
    free(ids);
    free(depth);
}

static long long item_points(const long *c) {
    static const int worth[] = {0, 1, 3, 5, 7, 10};
    long left[5];
    long long total = 0;
    memcpy(left, c, sizeof(left));
    for (;;) {
        int kinds = 0;
        for (int k = 0; k < 5; k++) {
            if (left[k] > 0) {
                left[k]--;
                kinds++;
            }
        }
        if (kinds == 0) {
            return total;
        }
        total += worth[kinds];
    }
}

static int fail(int status, const char *message) {
    fprintf(stderr, "%s\n", message);
    return status;
}

/* One HAP message (the text after "HAP"): 1 when applied, 0 when it is bad. */
static int hap(const char *s, size_t len) {
    long long v[5];
    size_t start = 0;
    int field = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != ',') {
            continue;
        }
        if (field == 5 || !number(s + start, i - start, field == 3, &v[field])) {
            return 0;
        }
        field++;
        start = i + 1;
    }
    if (field != 5 || v[4] > 5 || v[0] >= nplayers || v[1] >= nsites) {
        return 0;
    }
    Player *p = &players[v[0]];
    p->site = v[1];
    p->order = clock_++;
    p->points += v[2];
    p->money += v[3];
    if (v[4] > 0) {
        p->cards[v[4] - 1]++;
    }
    p->v1 += type[v[1]] == V1;
    p->v2 += type[v[1]] == V2;
#ifdef PLANT_STATUS_SPACE
    fprintf(stderr, "Player %lld Money = %lld", v[0], p->money);
#else
    fprintf(stderr, "Player %lld Money=%lld", v[0], p->money);
#endif
    fprintf(stderr, " V1=%ld V2=%ld Points=%lld A=%ld B=%ld C=%ld D=%ld E=%ld\n", p->v1, p->v2,
            p->points, p->cards[0], p->cards[1], p->cards[2], p->cards[3], p->cards[4]);
    display();
    return 1;
}

/* The next line without its '\n' (a last line ended by EOF counts); NULL at EOF or for a
 * line longer than MAX_LINE, which the reference cannot keep either. */
static char *next_line(size_t *len) {
    static char *buf;
    static size_t size;
    fflush(stderr);
    ssize_t n = getline(&buf, &size, stdin);
    if (n <= 0) {
        return NULL;
    }
    if (buf[n - 1] == '\n') {
        n--;
    }
    if (n > MAX_LINE) {
        return NULL;
    }
    *len = n;
    return buf;
}

static int is(const char *line, size_t len, const char *word) {
    return len == strlen(word) && memcmp(line, word, len) == 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        return fail(1, "Usage: player pcount ID");
    }
    if (!arg_number(argv[1], &nplayers) || nplayers < 1 || nplayers > MAX_PLAYERS) {
        return fail(2, "Invalid player count");
    }
    if (!arg_number(argv[2], &me) || me >= nplayers) {
#ifdef PLANT_ID_STATUS
        return fail(2, "Invalid ID");
#else
        return fail(3, "Invalid ID");
#endif
    }
    printf("^");
    fflush(stdout);
    size_t len;
    char *line = next_line(&len);
    if (!line || !parse_path(line, len)) {
        return fail(4, "Invalid path");
    }
    players = calloc(nplayers, sizeof(Player));
    for (long p = 0; p < nplayers; p++) {
        players[p].money = 7;
        players[p].order = nplayers - 1 - p;
    }
    clock_ = nplayers;
    display();
    for (;;) {
        line = next_line(&len);
        if (!line) {
            return fail(6, "Communications error");
        }
        if (is(line, len, "YT")) {
            long s = choose();
            if (s < 0) {
                return fail(6, "Communications error");
            }
            printf("DO%ld\n", s);
            fflush(stdout);
        } else if (is(line, len, "EARLY")) {
#ifdef PLANT_EARLY_STATUS
            return 0;
#else
            return fail(5, "Early game over");
#endif
        } else if (is(line, len, "DONE")) {
            fprintf(stderr, "Scores: ");
            for (long p = 0; p < nplayers; p++) {
                Player *q = &players[p];
                fprintf(stderr, "%s%lld", p ? "," : "", q->points + q->v1 + q->v2 + item_points(q->cards));
            }
            fprintf(stderr, "\n");
            return 0;
        } else if (len >= 3 && memcmp(line, "HAP", 3) == 0 && hap(line + 3, len - 3)) {
            continue;
        } else {
            return fail(6, "Communications error");
        }
    }
}
