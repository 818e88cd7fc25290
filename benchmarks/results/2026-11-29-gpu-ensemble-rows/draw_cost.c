/* The host time of one forcing draw (csrc/forcing.c: ac_forcing_sample_next), helical,
 * twelve wave vectors: gcc -O3 -Icsrc draw_cost.c csrc/forcing.c -lm && ./a.out */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "forcing.h"
int main(void){
    double k[3*12]; for(int i=0;i<12;i++){k[3*i]=1+(i%3);k[3*i+1]=(i%2);k[3*i+2]=(i/4);}
    ac_forcing f = {0}; f.k = k; f.count = 12; f.f0 = 0.02; f.relhel = 1.0; f.state = 12345;
    ac_forcing_sample s; struct timespec a,b; clock_gettime(CLOCK_MONOTONIC,&a);
    double acc=0; for(int n=0;n<1000000;n++){ ac_forcing_sample_next(&f,&s); acc+=s.phase;}
    clock_gettime(CLOCK_MONOTONIC,&b);
    printf("%.1f ns per draw (%g)\n", ((b.tv_sec-a.tv_sec)*1e9+(b.tv_nsec-a.tv_nsec))/1e6, acc);
}
